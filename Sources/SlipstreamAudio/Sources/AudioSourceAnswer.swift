import SlipstreamHTTP

/// What a connection's answer says about the bytes that follow.
package struct AudioSourceAnswer: Sendable, Equatable {
    /// When the bytes of a connection opened at a time start (`AudioSourceRequest.time`).
    package struct StartTime: Hashable, Sendable {
        /// Seconds from the stream's start to the first audio that follows.
        package var seconds: Double
        /// Whether the stream's timestamps say so (exact to the sample), rather than an estimate.
        package var isExact: Bool

        /// A start `seconds` from the stream's start, `isExact` or estimated.
        package init(seconds: Double, isExact: Bool) {
            self.seconds = seconds
            self.isExact = isExact
        }
    }

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
    /// Whether a connection can be opened at any time of the stream (`AudioSourceRequest.time`):
    /// an HLS playlist that keeps its segments (VOD, EVENT).
    package var seeksByTime = false
    /// Where the bytes start, for a connection opened at a time.
    package var startTime: StartTime?
    /// The whole stream's duration in seconds, when the source knows it apart from its bytes
    /// (an HLS playlist that has ended: the sum of its segments' durations).
    package var duration: Double?

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
