extension String {
    /// What stands for a password taken out of a URL.
    package static let redactedPassword = "***"

    /// The text with the password of every URL in it replaced by `***`
    /// (`http://alice:***@host/file`): for anything a person or a program may see or keep (an
    /// error message, a log line, JSON, a hook's environment, a record on disk). The user name
    /// stays, to tell logins apart. A URL is any `scheme://` in the text; its login is what its
    /// authority holds before the last `@`. Pure; the text itself when it holds no password.
    package var redactingLogins: String {
        // Bytes, not Characters: the common case, no login, is one quick scan.
        guard utf8.contains(UInt8(ascii: "@")) else { return self }
        var out = Substring.UnicodeScalarView()
        var rest = self[...]
        while let separator = rest.firstRange(of: "://") {
            out.append(contentsOf: rest[..<separator.upperBound].unicodeScalars)
            rest = rest[separator.upperBound...]
            let authority = rest.prefix { !Self.endsAuthority($0) }
            guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { continue }
            out.append(contentsOf: rest[...colon].unicodeScalars)
            out.append(contentsOf: Self.redactedPassword.unicodeScalars)
            rest = rest[at...]
        }
        out.append(contentsOf: rest.unicodeScalars)
        return String(out)
    }

    /// The characters that end a URL's authority: its path, query or fragment, or the end of the
    /// URL in running text (a space, a quote, a bracket, a control character).
    private static func endsAuthority(_ character: Character) -> Bool {
        switch character {
        case "/", "?", "#", " ", "\"", "'", "<", ">", "`", "(", ")", "\\": true
        default: character.unicodeScalars.contains(where: \.isTerminalControl)
        }
    }
}
