/// What to fetch and how. Every option has a documented default; only `url` is required.
public struct HTTPRequest: Sendable {
    /// The request method.
    public enum Method: String, Sendable {
        /// Fetch the body.
        case get = "GET"
        /// Fetch only the head.
        case head = "HEAD"
    }

    /// A byte range to ask for with a `Range` header.
    public struct ByteRange: Sendable, Equatable, CustomStringConvertible {
        /// The first byte wanted (0-based).
        public var start: Int64
        /// The last byte wanted, inclusive; nil means "to the end".
        public var end: Int64?

        /// A range from `start` to `end` inclusive, or to the end of the file when `end` is nil.
        public init(start: Int64, end: Int64? = nil) {
            self.start = start
            self.end = end
        }

        /// The range in the form of a `Range` header value without the unit, e.g. `100-199` or `100-`.
        public var description: String { "\(start)-\(end.map(String.init) ?? "")" }
    }

    /// The absolute `http://` or `https://` URL (or `ftp://`, `ftps://`, `sftp://` with
    /// `allowsFileProtocols`).
    public var url: String
    /// Whether `ftp://`, `ftps://` and `sftp://` URLs are fetched too (downloads set it), their
    /// answers put in HTTP's terms (`FileTransferAnswer`). Default false: any other scheme
    /// than `http` and `https` fails with `.unsupportedScheme`.
    public var allowsFileProtocols = false
    /// GET (default) or HEAD.
    public var method: Method = .get
    /// Extra header fields, sent after the ones Slipstream sets; a field given here with
    /// the same name as one Slipstream sets (such as `Accept-Encoding`) replaces it.
    public var headers: HTTPHeaders = HTTPHeaders()
    /// The byte range to ask for; nil (default) asks for the whole body.
    public var range: ByteRange?
    /// How long to wait for a connection (libcurl counts whole milliseconds, at least 1).
    /// Default 30 seconds.
    public var connectTimeout = Duration.seconds(30)
    /// Together with `lowSpeedTime`: the transfer fails with `.timeout` when it moves fewer
    /// than this many bytes per second for `lowSpeedTime`. 0 turns the check off. Default 1.
    public var lowSpeedLimit: Int = 1
    /// See `lowSpeedLimit` (libcurl counts whole seconds, rounded up; 0 turns the check off).
    /// Default 60 seconds.
    public var lowSpeedTime = Duration.seconds(60)
    /// A proxy URL: `http://`, `https://`, `socks4://`, `socks5://` or `socks5h://` (host
    /// resolved by the proxy). nil (default) uses none, whatever the environment says.
    public var proxy: String?
    /// The IP version to connect over. Default `.any`.
    public var ipVersion = IPVersion.any
    /// How many redirects to follow before failing with `.tooManyRedirects`. Default 10.
    public var maxRedirects: Int = 10
    /// The `User-Agent`. Default `Slipstream/<version>`.
    public var userAgent: String = "Slipstream/\(SlipstreamVersion.string)"
    /// TLS trust, login and cookies. Default: verified TLS with the system's certificate
    /// authorities, no login, no cookies. The login goes to this request's URL only: after a
    /// redirect to another host, port or scheme it is not sent.
    public var access = TransferAccess()
    /// Ask for the body as stored (`Accept-Encoding: identity`), never compressed. Default true.
    public var identityEncoding: Bool = true
    /// The size of libcurl's receive buffer in bytes (16 KiB to 1 MiB), which is also the
    /// largest slice a sink is handed at once. Default 128 KiB.
    public var receiveBufferSize: Int = 128 * 1024
    /// Whether an old SHOUTcast server's `ICY 200 OK` status line is taken as `HTTP/1.0 200`
    /// (libcurl's `CURLOPT_HTTP200ALIASES`). Default false.
    public var acceptsICYStatus = false

    /// A GET request for `url` with every other option at its default.
    public init(url: String) {
        self.url = url
    }
}
