extension Unicode.Scalar {
    /// Whether the scalar controls a terminal or hides what text says rather than showing
    /// something: the C0 controls, DEL, the C1 controls (ESC's 8-bit forms among them) and the
    /// bidirectional overrides and isolates, which make text read other than it is.
    package var isTerminalControl: Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension String {
    /// The text with every terminal control escaped (`\e`, `\n`, `\r`, `\t`, `\x07`, `\u{202E}`),
    /// so that text from outside (a station's title, a tag, a server's message, a URL, a file
    /// name) shows as what it is and never moves the cursor, clears the screen, sets a window's
    /// title or fakes a line of its own. Backslashes are kept as they are. Pure; the text
    /// itself when there is nothing to escape.
    package var printable: String {
        guard unicodeScalars.contains(where: \.isTerminalControl) else { return self }
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard scalar.isTerminalControl else {
                out.append(scalar)
                continue
            }
            let escaped: String
            switch scalar {
            case "\u{1B}": escaped = "\\e"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            case _ where scalar.value < 0x100:
                let hex = String(scalar.value, radix: 16)
                escaped = "\\x" + (hex.count < 2 ? "0" : "") + hex
            default: escaped = "\\u{" + String(scalar.value, radix: 16) + "}"
            }
            out.append(contentsOf: escaped.unicodeScalars)
        }
        return String(out)
    }
}
