import SlipstreamCore
import SlipstreamHTTP

/// Why an audio URL or file could not be described: a code, a message naming the URL or file
/// (and the offset or status where they matter), those facts as fields, and the underlying
/// error kept. It gives no advice: the command line maps codes to exit statuses.
///
/// Two errors are equal when their facts are; the underlying error is not compared.
public struct AudioInfoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: `.network`, `.httpStatus`, `.notAudio` ... New codes may be added:
    /// switch with a `default`.
    public typealias Code = ErrorCode<AudioInfoError>

    /// What went wrong.
    public var code: Code
    /// One line for a person, starting with the URL or file. Every URL's password in it is `***`.
    public var message: String {
        get { redactedMessage }
        set { redactedMessage = newValue.redactingLogins }
    }
    /// `message`, each URL's password in it replaced by `***`.
    private var redactedMessage: String
    /// The URL, when a URL was read.
    public var url: String?
    /// The file, when a file was read.
    public var path: String?
    /// The byte offset the failure concerns, where it concerns one.
    public var offset: Int64?
    /// The HTTP status, for `.httpStatus` and `.rangeNotHonoured`.
    public var status: Int?
    /// The error underneath: an `HTTPError`, an `AudioParserError` or an `AudioStreamerError`.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, url: String? = nil, path: String? = nil, offset: Int64? = nil,
        status: Int? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        redactedMessage = message.redactingLogins
        self.url = url
        self.path = path
        self.offset = offset
        self.status = status
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: AudioInfoError, b: AudioInfoError) -> Bool {
        a.code == b.code && a.message == b.message && a.url == b.url && a.path == b.path && a.offset == b.offset
            && a.status == b.status
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

extension AudioInfoError {
    /// A source's failure, as the info reader tells it.
    init(_ error: AudioStreamerError) {
        let http = error.underlying as? HTTPError
        let code: Code =
            switch error.code {
            case .httpStatus: .httpStatus
            case .rangeNotHonoured: .rangeNotHonoured
            case .file: .file
            case .cancelled: .cancelled
            case _ where http?.code == .malformedURL || http?.code == .unsupportedScheme: .invalidURL
            default: .network
            }
        self.init(
            code, error.message, url: error.url, path: error.path, offset: error.offset, status: error.status,
            underlying: http ?? error)
    }
}

extension ErrorCode where Domain == AudioInfoError {
    /// The URL is malformed, or its scheme is not `http` or `https`.
    public static var invalidURL: Self { Self("invalid url") }
    /// The connection failed: name lookup, connect, TLS, a timeout, a connection lost.
    public static var network: Self { Self("network") }
    /// The server answered with an error status (see `status`).
    public static var httpStatus: Self { Self("http status") }
    /// The server answered a range request with other bytes than those asked for.
    public static var rangeNotHonoured: Self { Self("range not honoured") }
    /// The local file cannot be read (missing, a folder, unreadable).
    public static var file: Self { Self("file") }
    /// The bytes are not audio in a supported format (see `underlying`, an
    /// `AudioParserError`).
    public static var notAudio: Self { Self("not audio") }
    /// The task reading was cancelled.
    public static var cancelled: Self { Self("cancelled") }
}
