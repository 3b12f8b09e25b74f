import SlipstreamHTTP

/// Why playback stopped on its own: a code per cause (in the spirit of AudioStreamer's error
/// codes), a message naming the URL, offset or device, and the underlying error where one exists.
public struct AudioStreamerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cause.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: Int
        let name: String
        /// The connection failed (resolve, connect, TLS, lost) and reconnecting did not help.
        public static let network = Code(raw: 1, name: "network")
        /// The server answered with an HTTP error status (never retried when it is a 4xx).
        public static let httpStatus = Code(raw: 2, name: "http status")
        /// The server did not answer a range request with a 206 from the byte asked for.
        public static let rangeNotHonoured = Code(raw: 3, name: "range not honoured")
        /// The bytes are not a format the player plays (HTML, a playlist, Ogg ...).
        public static let unsupportedFormat = Code(raw: 4, name: "unsupported format")
        /// The stream ended before any audio packet was found.
        public static let noAudioData = Code(raw: 5, name: "no audio data")
        /// The decoder could not be created or failed.
        public static let decoder = Code(raw: 6, name: "decoder")
        /// The audio output could not be opened or failed.
        public static let output = Code(raw: 7, name: "output")
        /// No bytes arrived for the inactivity timeout, and reconnecting did not help.
        public static let timedOut = Code(raw: 8, name: "timed out")
        /// The local file could not be read.
        public static let file = Code(raw: 9, name: "file")
        /// The seek target is outside the stream or the stream cannot seek.
        public static let seek = Code(raw: 10, name: "seek")

        public var description: String { name }
    }

    /// The cause.
    public var code: Code
    /// One line for a person.
    public var message: String
    /// The HTTP status, for `.httpStatus`.
    public var status: Int?

    /// Whether reconnecting may help (network trouble, timeouts, 408, 429, 5xx).
    public var isRetryable: Bool

    /// Creates an error; `retryable` defaults to what the code says (network trouble and
    /// timeouts are, nothing else is).
    public init(_ code: Code, _ message: String, status: Int? = nil, retryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.status = status
        isRetryable = retryable ?? (code == .network || code == .timedOut)
    }

    public var description: String { message }

    /// The player's view of a transfer error.
    init(_ error: HTTPError) {
        switch error.code {
        case .httpStatus:
            self.init(.httpStatus, error.description, status: error.status, retryable: error.isRetryable)
        case .timeout:
            self.init(.timedOut, error.description)
        case .rangeNotHonoured:
            self.init(.rangeNotHonoured, error.description)
        default:
            self.init(.network, error.description, retryable: error.isRetryable)
        }
    }
}

extension AudioStreamerError {
    /// The player's view of a parser error.
    init(parserError error: AudioParserError, source: String) {
        let code: Code = error.code == .malformed ? .noAudioData : .unsupportedFormat
        self.init(code, "\(source): \(error.message)")
    }
}
