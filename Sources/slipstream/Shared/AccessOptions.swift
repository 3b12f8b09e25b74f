#if canImport(Glibc)
import Glibc
#endif
import SlipstreamHTTP

/// The options of TLS trust, login and cookies that `get`, `play` and `info` share, as parsed.
/// Pure: the password prompt and the cookie file wait for `makeAccess`.
struct AccessOptions: Equatable {
    /// TLS trust: `-k`, `--cacert`, `--capath`, `--pinnedpubkey`.
    var security = TransferSecurity()
    /// `--user USER[:PASSWORD]`: the user, and the password when given.
    var user: String?
    var password: String?
    /// `--auth any|basic|digest`.
    var methods = Credentials.Methods.any
    /// `--netrc`, `--netrc-file FILE`.
    var netrc = NetrcUse.off
    /// `--cookies FILE`: a Netscape cookie file to start from.
    var cookieFile: String?
    /// `--cookie-jar FILE`: where the cookies are written.
    var cookieJar: String?

    /// The help lines of these options, for each command's usage.
    static let usage = """
              --cacert FILE          trust the certificate authorities in FILE (PEM) instead
                                     of the system's
              --capath DIR           trust the certificate authorities in DIR (PEM files
                                     named by subject hash: openssl rehash DIR)
              --pinnedpubkey PIN     the server's public key must be PIN: sha256//BASE64
                                     (several joined by ;) or a PEM/DER public key file
          -k, --insecure             do not verify TLS certificates (a pin is still checked)
              --user USER[:PASS]     log in as USER; without :PASS the password is asked for
                                     on the terminal (not echoed). Sent only to the server of
                                     the URL given, never to one a redirect leads to
              --auth any|basic|digest
                                     how the login may be sent (default any: as the server asks)
              --netrc                look logins up by host in ~/.netrc
              --netrc-file FILE      look logins up by host in FILE
              --cookies FILE         send the cookies of FILE (Netscape cookie file format)
              --cookie-jar FILE      write every cookie (those the server set too) to FILE
        """

    /// Whether any of these options was given (they apply to URLs, not files).
    var isSet: Bool { self != AccessOptions() }

    /// Takes option `name` when it is one of these; false when it is not.
    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) -> Bool {
        switch name {
        case "--cacert":
            security.caFile = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "--capath":
            security.caPath = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "--pinnedpubkey":
            security.pinnedPublicKey = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "-k", "--insecure":
            try CommandLineArguments.flag(name, inline: inline)
            security.verifiesPeer = false
        case "--user", "-u":
            let text = try reader.value(for: name, inline: inline)
            let colon = text.firstIndex(of: ":")
            user = String(text[..<(colon ?? text.endIndex)])
            password = colon.map { String(text[text.index(after: $0)...]) }
            if user!.isEmpty { throw UsageError("\(name) needs a user name: USER or USER:PASSWORD") }
        case "--auth":
            let text = try reader.value(for: name, inline: inline)
            switch text {
            case "any": methods = .any
            case "basic": methods = .basic
            case "digest": methods = .digest
            default: throw UsageError("\(name) must be any, basic or digest, not '\(text)'")
            }
        case "--netrc":
            try CommandLineArguments.flag(name, inline: inline)
            netrc = .defaultFile
        case "--netrc-file":
            netrc = .file(try Self.path(try reader.value(for: name, inline: inline), for: name))
        case "--cookies":
            cookieFile = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "--cookie-jar":
            cookieJar = try Self.path(try reader.value(for: name, inline: inline), for: name)
        default:
            return false
        }
        return true
    }

    /// The access these options ask for: the password asked for on the terminal where
    /// `--user` gave none, the cookie file read. Fails, saying why, when the terminal, a file
    /// or the jar's folder cannot be used.
    func makeAccess() throws(CommandError) -> TransferAccess {
        var access = TransferAccess()
        access.security = security
        access.netrc = netrc
        if let user {
            var password = self.password
            if password == nil { password = try PasswordPrompt.ask("password for \(user): ") }
            access.credentials = Credentials(user: user, password: password ?? "", methods: methods)
        }
        for file in [security.caFile, cookieFile, netrc.file].compactMap({ $0 }) where Glibc.access(file, R_OK) != 0 {
            throw CommandError(status: .disk, message: "\(file): cannot be read (\(String(cString: strerror(errno))))")
        }
        if cookieFile != nil || cookieJar != nil {
            access.cookies = CookieSession(readingFrom: cookieFile, savingTo: cookieJar)
        }
        return access
    }

    private static func path(_ text: String, for option: String) throws(UsageError) -> String {
        if text.isEmpty { throw UsageError("\(option) needs a file name") }
        return text
    }
}

extension NetrcUse {
    /// The file given with `--netrc-file`.
    fileprivate var file: String? {
        if case .file(let path) = self { path } else { nil }
    }
}
