import SlipstreamHTTP

/// How a download runs. Every setting has a documented default.
public struct DownloadConfiguration: Sendable {
    /// Connections to open at most when the server supports ranges, 1 to 64. Default 8.
    public var connections = 8
    /// The smallest part split off a running connection's range for an idle one, in bytes.
    /// Default 1 MiB.
    public var minimumSplitSize: Int64 = 1 << 20
    /// Replace an existing output file. Default false: an existing file is an error.
    public var overwrite = false
    /// Extra request header fields, sent on every request.
    public var headers = HTTPHeaders()
    /// A proxy URL (`http://`, `https://`, `socks4://`, `socks5://`, `socks5h://`); nil for none.
    public var proxy: String?
    /// The `User-Agent`. Default `Slipstream/<version>`.
    public var userAgent = "Slipstream/\(SlipstreamVersion.string)"
    /// Seconds to wait for each connection. Default 30.
    public var connectTimeout: Double = 30
    /// A connection that moves fewer than `lowSpeedLimit` bytes per second for `lowSpeedTime`
    /// seconds is dropped and its range handed back. Defaults 1 byte/s and 30 s.
    public var lowSpeedLimit = 1
    /// See `lowSpeedLimit`, in seconds.
    public var lowSpeedTime = 30
    /// Verify TLS certificates. Default true.
    public var verifyTLS = true
    /// Memory for bytes received but not yet written, per connection, in bytes (the pool is
    /// shared, so a fast connection may use more while others idle). When it is full, the disk
    /// is behind, and slices are written straight from libcurl's buffer instead. Default 512 KiB.
    public var writeBufferPerConnection = 512 << 10
    /// How many failed connections a download survives (each one's range is fetched again by
    /// another connection) before it fails. Default 8.
    public var connectionFailureBudget = 8

    /// The defaults.
    public init() {}

    /// A request for `url` with these settings.
    func request(_ url: String, range: HTTPRequest.ByteRange?) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.range = range
        request.headers = headers
        request.proxy = proxy
        request.userAgent = userAgent
        request.connectTimeout = connectTimeout
        request.lowSpeedLimit = lowSpeedLimit
        request.lowSpeedTime = lowSpeedTime
        request.verifyTLS = verifyTLS
        return request
    }
}
