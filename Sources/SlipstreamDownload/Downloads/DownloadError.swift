import SlipstreamCore
import SlipstreamHTTP

/// A failed download: the kind of failure, a message naming the URL or file, the facts a
/// program needs to act on it (the URL, the file, where the bytes so far are kept), and the
/// underlying cause. Messages state facts; what a person should do about them is the
/// application's to say (the command line maps codes to advice).
public struct DownloadError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. A struct rather than an enum so that new kinds don't break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidURL = "invalid URL"
            case network
            case http = "HTTP"
            case rangeNotHonoured = "range not honoured"
            case output
            case exists
            case noSpace = "no space"
            case disk
            case checksum
            case tooLarge = "too large"
            case invalidChecksum = "invalid checksum"
            case input
            case cancelled
            case outputClosed = "output closed"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The URL is malformed or not http, https, ftp, ftps or sftp.
        public static let invalidURL = Code(.invalidURL)
        /// The network failed (resolve, connect, TLS, timeout, connection lost, ...).
        public static let network = Code(.network)
        /// The server answered with an unusable status (see `http?.status`), or no usable answer.
        public static let http = Code(.http)
        /// The server answers range requests with other bytes than asked for, again and again:
        /// one connection (no ranges) may still work.
        public static let rangeNotHonoured = Code(.rangeNotHonoured)
        /// The output path is unusable: a folder, in a missing folder, or not writable.
        public static let output = Code(.output)
        /// The output file exists, and `overwrite` is off (`path` names it).
        public static let exists = Code(.exists)
        /// The disk has no room for the file.
        public static let noSpace = Code(.noSpace)
        /// Writing, renaming or opening a file failed.
        public static let disk = Code(.disk)
        /// The finished file does not have the expected checksum.
        public static let checksum = Code(.checksum)
        /// The file is larger than `DownloadConfiguration.maxFileSize`: refused before its body
        /// when the server gave its size, else stopped once it passed it (what was written is
        /// removed).
        public static let tooLarge = Code(.tooLarge)
        /// A checksum to check against is not one: an unknown algorithm, or a digest of the
        /// wrong length or with other characters than hex digits.
        public static let invalidChecksum = Code(.invalidChecksum)
        /// A list of downloads (an input or session file) cannot be read: damaged, or not in
        /// the format of `DownloadList`.
        public static let input = Code(.input)
        /// The download was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The reader of a stream destination (`DownloadDestination.stream`) closed it before
        /// the end (a broken pipe, such as `| head`).
        public static let outputClosed = Code(.outputClosed)

        /// A stable name, e.g. `no space`.
        public var description: String { kind.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// One line for a person, naming the URL or file and the cause. Every URL's password in it is `***`.
    public var message: String {
        get { redactedMessage }
        set { redactedMessage = newValue.redactingLogins }
    }
    /// `message`, each URL's password in it replaced by `***`.
    private var redactedMessage: String
    /// The URL concerned, where there is one.
    public var url: String?
    /// The file concerned, where there is one (the output file, or the one a disk error hit).
    public var path: String?
    /// The `.part` file that keeps the bytes fetched so far, with its resume records, when
    /// starting the same download again resumes from it; nil when nothing was kept (or a
    /// fresh start would be needed).
    public var resumableFile: String?
    /// The cause underneath (a transfer error, a system error), if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, url: String? = nil, path: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        redactedMessage = message.redactingLogins
        self.url = url
        self.path = path
        self.underlying = underlying
    }

    /// The transfer error underneath, if that is the cause.
    public var http: HTTPError? { underlying as? HTTPError }

    /// The message.
    public var description: String { message }

    /// The download error for a transfer error.
    init(_ error: HTTPError) {
        let code: Code =
            switch error.code {
            case .malformedURL, .unsupportedScheme: .invalidURL
            case .rangeNotHonoured: .rangeNotHonoured
            case .httpStatus, .invalidResponse, .tooManyRedirects, .loginDenied, .remoteFileNotFound: .http
            case .cancelled: .cancelled
            default: .network
            }
        self.init(code, error.description, url: error.url, underlying: error)
    }
}
