import SlipstreamHTTP

/// What a connection's answer says about the bytes that follow.
package struct AudioSourceAnswer: Sendable {
    /// The stream offset of the first byte that follows: the one asked for, or 0 when the
    /// source could only start at the beginning (a server that answers no ranges).
    package var offset: Int64
    /// The whole stream's size in bytes, when known.
    package var totalSize: Int64?
    /// Whether any offset can be asked for: true for a file or a server that answered a range,
    /// false for one that refused, nil when no range was asked for yet.
    package var rangesSupported: Bool?
    /// Whether the stream is live: no size, no end, and a new connection starts at "now".
    package var isLive: Bool
    /// The content type, a hint for the parser (HTTP `Content-Type`).
    package var contentType: String?
    /// The URL that answered, when redirects led elsewhere.
    package var effectiveURL: String?
    /// The response headers, for a wrapper that reads its own (an ICY filter's `icy-metaint`);
    /// empty for a file.
    package var headers: HTTPHeaders

    /// An answer; see the properties.
    package init(
        offset: Int64, totalSize: Int64?, rangesSupported: Bool?, isLive: Bool, contentType: String? = nil,
        effectiveURL: String? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.offset = offset
        self.totalSize = totalSize
        self.rangesSupported = rangesSupported
        self.isLive = isLive
        self.contentType = contentType
        self.effectiveURL = effectiveURL
        self.headers = headers
    }
}
