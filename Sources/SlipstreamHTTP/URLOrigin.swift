/// The scheme, host and port of a URL: where a login may be sent. Pure.
package struct URLOrigin: Hashable, Sendable {
    /// The scheme, in lowercase.
    package var scheme: String
    /// The host, in lowercase (an IPv6 address without its brackets).
    package var host: String
    /// The port, or the scheme's default port (0 when the scheme has none known here).
    package var port: Int

    /// The origin of `url` (`scheme://[user@]host[:port][/...]`); nil when it has none.
    package init?(_ url: String) {
        guard let separator = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<separator.lowerBound].lowercased()
        var authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { portText = rest.dropFirst() } else if !rest.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !scheme.isEmpty, !host.isEmpty else { return nil }
        let defaults = ["http": 80, "https": 443, "ftp": 21, "ftps": 990, "sftp": 22]
        var port = defaults[scheme] ?? 0
        if let portText, !portText.isEmpty {
            guard let value = Int(portText), (0...65535).contains(value) else { return nil }
            port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
    }
}
