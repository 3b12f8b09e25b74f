#if canImport(Glibc)
import Glibc
#endif

/// The checks a request passes before anything of it runs: its `Host` must name this server
/// (a page that rebinds a DNS name to 127.0.0.1 sends its own name), and its `Origin`, when a
/// browser sends one, must be the server's own page or an origin allowed to call it.
struct RequestPolicy: Sendable {
    /// What a request's `Origin` allows.
    enum OriginVerdict: Equatable {
        /// No `Origin`: not a browser's cross-origin request (or a navigation, or a `<script>`).
        case absent
        /// The server's own page.
        case sameOrigin
        /// Another origin allowed to call: answers carry `Access-Control-Allow-Origin: value`.
        case allowedCrossOrigin(String)
        /// Another origin: refused.
        case refused
    }

    /// The port listened on.
    var port: Int
    /// Whether any IP literal with our port names us (listening on every interface).
    var listenAll: Bool
    /// Allowed origins, lower-cased, without a trailing `/`.
    var allowedOrigins: Set<String>
    /// Whether every origin is allowed.
    var allowAnyOrigin: Bool

    init(port: Int, listenAll: Bool, allowedOrigins: [String], allowAnyOrigin: Bool) {
        self.port = port
        self.listenAll = listenAll
        self.allowedOrigins = Set(allowedOrigins.map(Self.normalizedOrigin))
        self.allowAnyOrigin = allowAnyOrigin
    }

    /// Whether `host` (a `Host` header) names this server: `127.0.0.1:PORT`, `localhost:PORT` or
    /// `[::1]:PORT`; when listening on every interface, any IP literal with our port too.
    func acceptsHost(_ host: String?) -> Bool {
        guard let host = host?.lowercased(), let colon = host.lastIndex(of: ":"),
            host[host.index(after: colon)...] == "\(port)"[...]
        else { return false }
        let name = host[..<colon]
        if name == "127.0.0.1" || name == "localhost" || name == "[::1]" { return true }
        guard listenAll else { return false }
        if name.hasPrefix("["), name.hasSuffix("]") {
            return Self.isAddress(String(name.dropFirst().dropLast()), family: AF_INET6)
        }
        return Self.isAddress(String(name), family: AF_INET)
    }

    /// What `origin` (an `Origin` header, nil when absent) allows for a request to `host` (its
    /// `Host`, already accepted).
    func verdict(origin: String?, host: String) -> OriginVerdict {
        guard let origin else { return .absent }
        let normalized = Self.normalizedOrigin(origin)
        if normalized == "http://" + host.lowercased() { return .sameOrigin }
        if allowAnyOrigin { return .allowedCrossOrigin("*") }
        if allowedOrigins.contains(normalized) { return .allowedCrossOrigin(origin) }
        return .refused
    }

    /// Whether a GET of the RPC path may run given its `Sec-Fetch-Site`: a `<script>` of another
    /// site's page (JSONP) sends no `Origin`, but a browser says where it comes from here.
    func acceptsFetchSite(_ site: String?, origin: OriginVerdict) -> Bool {
        if allowAnyOrigin { return true }
        if case .allowedCrossOrigin = origin { return true }
        guard let site = site?.lowercased() else { return true }
        return site == "same-origin" || site == "none"
    }

    private static func normalizedOrigin(_ origin: String) -> String {
        var origin = origin.lowercased()
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin
    }

    private static func isAddress(_ text: String, family: Int32) -> Bool {
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { inet_pton(family, text, $0.baseAddress) == 1 }
    }
}
