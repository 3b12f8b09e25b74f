import SlipstreamHTTP

/// One open source of stream bytes (an HTTP transfer or a local file reader) as the player
/// drives it: resumed after backpressure, cancelled on a seek or stop.
protocol StreamConnection: AnyObject, Sendable {
    /// Delivers again after the feed said `.pause`.
    func resume()
    /// Stops delivering; safe at any time and more than once.
    func cancel()
}

extension HTTPTransfer: StreamConnection {}

/// Where a connection's bytes go: the player's feed. Called on the connection's own thread.
protocol StreamFeed: AnyObject, Sendable {
    /// The answer to connection `generation` arrived; returns an error to refuse it.
    func accept(_ answer: StreamAnswer, generation: Int) -> AudioStreamerError?
    /// Bytes of connection `generation`; `.pause` leaves them untaken until `resume()`.
    func consume(_ bytes: UnsafeRawBufferPointer, generation: Int) -> HTTPSinkDecision
    /// Connection `generation` ended: `nil` when every byte was delivered.
    func finish(_ error: AudioStreamerError?, generation: Int)
}

/// What a connection's first answer says about the bytes that follow.
struct StreamAnswer: Sendable {
    /// Offset in the stream of the first byte that follows.
    var offset: Int64
    /// The whole stream's size, when known.
    var totalSize: Int64?
    /// Whether the source answers range requests (known only after one was asked for).
    var rangesSupported: Bool?
    /// A strong ETag, to ask later ranges of the same version with `If-Range`.
    var strongETag: String?
    /// The Content-Type, a hint for the parser.
    var contentType: String?
}
