/// What Slipstream accepts as the URL of a download.
enum HTTPURL {
    /// What is said of `url` unless it starts with `http://`, `https://`, `ftp://`, `ftps://` or
    /// `sftp://` (in any case) and names a host (`http:///x` would otherwise be retried as a
    /// network failure); nil for a URL accepted.
    static func refusal(of url: some StringProtocol) -> String? {
        let start = url.prefix(8).lowercased()
        guard let scheme = ["http://", "https://", "ftp://", "ftps://", "sftp://"].first(where: { start.hasPrefix($0) })
        else { return refusal }
        // The authority ends at the path, query or fragment; the host follows any login and
        // precedes any port (an IPv6 address is in brackets).
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let host = hostAndPort.hasPrefix("[") ? hostAndPort.dropFirst().prefix { $0 != "]" } : hostAndPort.prefix { $0 != ":" }
        return host.isEmpty ? "a URL without a host" : nil
    }

    /// What is said of a URL whose scheme is not accepted.
    static let refusal = "not an http, https, ftp, ftps or sftp URL"
}
