import SlipstreamHTTP

/// A failed download: the kind of failure, a message naming the URL or file, and the cause.
public struct DownloadError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. A struct rather than an enum so that new kinds don't break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable name.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The URL is malformed or not http/https.
        public static let invalidURL = Code("invalid URL")
        /// The network failed (resolve, connect, TLS, timeout, connection lost, ...).
        public static let network = Code("network")
        /// The server answered with an unusable status (see `http?.status`), or lied about ranges.
        public static let http = Code("HTTP")
        /// The output path is unusable: a folder, in a missing folder, not writable, or an
        /// existing file without `overwrite`.
        public static let output = Code("output")
        /// The disk has no room for the file.
        public static let noSpace = Code("no space")
        /// Writing, renaming or opening a file failed.
        public static let disk = Code("disk")
        /// The finished file does not have the expected checksum.
        public static let checksum = Code("checksum")
        /// A list of downloads (an input or session file) cannot be read: damaged, or not in
        /// the format of `DownloadList`.
        public static let input = Code("input")
        /// The download was cancelled.
        public static let cancelled = Code("cancelled")

        /// The name.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// One line for a person, naming the URL or file and the cause.
    public var message: String
    /// The transfer error underneath, if any.
    public var http: HTTPError?

    /// Creates an error.
    public init(_ code: Code, _ message: String, http: HTTPError? = nil) {
        self.code = code
        self.message = message
        self.http = http
    }

    /// The message.
    public var description: String { message }

    /// The download error for a transfer error.
    init(_ error: HTTPError) {
        switch error.code {
        case .malformedURL, .unsupportedScheme: self.init(.invalidURL, error.description, http: error)
        case .httpStatus, .rangeNotHonoured, .invalidResponse, .tooManyRedirects: self.init(.http, error.description, http: error)
        case .cancelled: self.init(.cancelled, error.description, http: error)
        default: self.init(.network, error.description, http: error)
        }
    }
}
