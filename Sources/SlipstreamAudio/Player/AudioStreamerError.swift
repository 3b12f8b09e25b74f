import SlipstreamCore
import SlipstreamHTTP

/// Why playback stopped on its own, or why a seek was refused: a code per cause (in the spirit
/// of AudioStreamer's error codes), a message naming the URL, file, offset or device, the facts
/// as fields, and the underlying error where one exists. It gives no advice: what to do about
/// a code is the caller's to say (the command line maps codes to exit statuses and hints).
///
/// Two errors are equal when their facts are (code, message, URL, path, offset, status,
/// retryability); the underlying error is not compared.
public struct AudioStreamerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cause: `.network`, `.httpStatus`, `.unsupportedFormat` ... New codes may be added:
    /// switch with a `default`.
    public typealias Code = ErrorCode<AudioStreamerError>

    /// The cause.
    public var code: Code
    /// One line for a person, naming what failed (a URL, file, offset or device). Every URL's password in it is `***`.
    public var message: String {
        get { redactedMessage }
        set { redactedMessage = newValue.redactingLogins }
    }
    /// `message`, each URL's password in it replaced by `***`.
    private var redactedMessage: String
    /// The error underneath, where there is one: an `HTTPError`, `AudioParserError`,
    /// `AudioDecoderError` or `AudioOutputError`.
    public var underlying: (any Error & Sendable)?
    /// The URL played, when the player plays a URL.
    public var url: String?
    /// The file played, when the player plays a local file; for `.recording`, the recording's
    /// file that failed.
    public var path: String?
    /// The byte offset in the stream the failure concerns, where it concerns one.
    public var offset: Int64?
    /// The HTTP status, for `.httpStatus`.
    public var status: Int?
    /// Whether reconnecting may help (network trouble, timeouts, 408, 429, 5xx).
    public var isRetryable: Bool

    /// Creates an error; `retryable` defaults to what the code says (network trouble and
    /// timeouts are, nothing else is).
    public init(
        _ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, url: String? = nil,
        path: String? = nil, offset: Int64? = nil, status: Int? = nil, retryable: Bool? = nil
    ) {
        self.code = code
        redactedMessage = message.redactingLogins
        self.underlying = underlying
        self.url = url
        self.path = path
        self.offset = offset
        self.status = status
        isRetryable = retryable ?? (code == .network || code == .timedOut)
    }

    /// The message.
    public var description: String { message }

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: AudioStreamerError, b: AudioStreamerError) -> Bool {
        a.code == b.code && a.message == b.message && a.url == b.url && a.path == b.path && a.offset == b.offset
            && a.status == b.status && a.isRetryable == b.isRetryable
    }

    /// Hashes the facts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(url)
        hasher.combine(path)
        hasher.combine(offset)
        hasher.combine(status)
    }
}

extension AudioStreamerError {
    /// The player's view of a failed transfer of `url`.
    init(_ error: HTTPError, offset: Int64? = nil) {
        let code: Code
        var retryable: Bool? = error.isRetryable
        switch error.code {
        case .httpStatus: code = .httpStatus
        case .timeout: (code, retryable) = (.timedOut, nil)
        case .rangeNotHonoured: (code, retryable) = (.rangeNotHonoured, nil)
        default: code = .network
        }
        self.init(
            code, error.description, underlying: error, url: error.url, offset: offset, status: error.status,
            retryable: retryable)
    }

    /// The player's view of a parser error in the stream from `source` (a URL or a file path).
    init(parserError error: AudioParserError, source: AudioLocation) {
        let code: Code = error.code == .malformed ? .noAudioData : .unsupportedFormat
        self.init(
            code, "\(source.text): \(error.message)", underlying: error, url: source.url, path: source.path,
            offset: error.offset)
    }

    /// The player's view of a decoder failure.
    init(decoderError error: AudioDecoderError) {
        self.init(.decoder, error.message, underlying: error)
    }

    /// The player's view of an output failure.
    init(outputError error: AudioOutputError) {
        self.init(.output, error.message, underlying: error)
    }
}

extension ErrorCode where Domain == AudioStreamerError {
    /// The connection failed (resolve, connect, TLS, lost) and reconnecting did not help.
    public static var network: Self { Self("network") }
    /// The server answered with an HTTP error status (never retried when it is a 4xx).
    public static var httpStatus: Self { Self("http status") }
    /// The server did not answer a range request with a 206 from the byte asked for.
    public static var rangeNotHonoured: Self { Self("range not honoured") }
    /// The bytes are not a format the player plays (HTML, a playlist, Ogg ...).
    public static var unsupportedFormat: Self { Self("unsupported format") }
    /// The stream ended before any audio packet was found.
    public static var noAudioData: Self { Self("no audio data") }
    /// The decoder could not be created or failed.
    public static var decoder: Self { Self("decoder") }
    /// Most of the stream could not be decoded: its frames are there, but more than half of
    /// them are not valid data for the codec (`AudioStreamerEvent.undecodableFrames`).
    public static var undecodable: Self { Self("undecodable") }
    /// The audio output could not be opened or failed.
    public static var output: Self { Self("output") }
    /// No bytes arrived for the inactivity timeout, and reconnecting did not help.
    public static var timedOut: Self { Self("timed out") }
    /// The local file could not be read.
    public static var file: Self { Self("file") }
    /// The seek target is outside the stream or the stream cannot seek.
    public static var seek: Self { Self("seek") }
    /// The task awaiting the player's end was cancelled (the player was stopped).
    public static var cancelled: Self { Self("cancelled") }
    /// A recording file could not be created or written: the recording ended, playback went on.
    public static var recording: Self { Self("recording") }
}
