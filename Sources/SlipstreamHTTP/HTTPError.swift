import SlipstreamCore

/// A failed transfer: what kind of failure, the URL it concerns and the underlying cause.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. A struct rather than an enum so that new kinds don't break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case malformedURL = "malformed URL"
            case unsupportedScheme = "unsupported scheme"
            case resolve, connect, proxy
            case tls = "TLS"
            case timeout
            case tooManyRedirects = "too many redirects"
            case connectionLost = "connection lost"
            case httpStatus = "HTTP status"
            case rangeNotHonoured = "range not honoured"
            case invalidResponse = "invalid response"
            case writeFailed = "write failed"
            case cancelled
            case loginDenied = "login denied"
            case remoteFileNotFound = "remote file not found"
            case unknownHostKey = "unknown host key"
            case hostKeyMismatch = "host key mismatch"
            case other = "transfer failed"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The URL could not be parsed.
        public static let malformedURL = Code(.malformedURL)
        /// The URL's scheme is not `http`, `https`, `ftp`, `ftps` or `sftp`.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// The host name (or the proxy's) did not resolve.
        public static let resolve = Code(.resolve)
        /// No TCP connection could be made.
        public static let connect = Code(.connect)
        /// The proxy refused or failed.
        public static let proxy = Code(.proxy)
        /// TLS handshake or certificate verification failed.
        public static let tls = Code(.tls)
        /// The connect timeout passed, or the transfer stayed below the low-speed limit too long.
        public static let timeout = Code(.timeout)
        /// More redirects than the request allows.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// The connection closed, or failed, before the whole body arrived.
        public static let connectionLost = Code(.connectionLost)
        /// The server answered with a status the caller cannot use (see `status`).
        public static let httpStatus = Code(.httpStatus)
        /// A range request got an answer that is not the asked-for range.
        public static let rangeNotHonoured = Code(.rangeNotHonoured)
        /// The response is malformed in a way that makes it unusable.
        public static let invalidResponse = Code(.invalidResponse)
        /// The sink could not take the body (e.g. a disk write failed).
        public static let writeFailed = Code(.writeFailed)
        /// The transfer was cancelled.
        public static let cancelled = Code(.cancelled)
        /// An FTP or SSH server refused the login (user, password or key).
        public static let loginDenied = Code(.loginDenied)
        /// An FTP or SFTP server has no such file.
        public static let remoteFileNotFound = Code(.remoteFileNotFound)
        /// The SSH server's host is not in the known hosts file (and new hosts are not accepted).
        public static let unknownHostKey = Code(.unknownHostKey)
        /// The SSH server's host key is not the one the known hosts file has for its host.
        public static let hostKeyMismatch = Code(.hostKeyMismatch)
        /// Any other libcurl failure.
        public static let other = Code(.other)

        /// A stable name for the kind, e.g. `connect`.
        public var name: String { kind.rawValue }

        /// The name.
        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// The URL of the request.
    public var url: String
    /// What went wrong, for a person. Every URL's password in it is `***`.
    public var message: String {
        get { redactedMessage }
        set { redactedMessage = newValue.redactingLogins }
    }
    /// `message`, each URL's password in it replaced by `***`.
    private var redactedMessage: String
    /// The HTTP status, where one was received.
    public var status: Int?
    /// libcurl's result code, where libcurl reported the failure.
    public var curlCode: Int?
    /// Seconds the server asked to wait before trying again (`Retry-After`), if it did.
    public var retryAfter: Double?
    /// For a `.tls` error, which check failed, where libcurl tells.
    public var tlsProblem: TLSProblem?

    /// Creates an error.
    public init(
        _ code: Code, url: String, message: String, status: Int? = nil, curlCode: Int? = nil,
        retryAfter: Double? = nil, tlsProblem: TLSProblem? = nil
    ) {
        self.code = code
        self.url = url
        redactedMessage = message.redactingLogins
        self.status = status
        self.curlCode = curlCode
        self.retryAfter = retryAfter
        self.tlsProblem = tlsProblem
    }

    /// One line: the URL (without its password), the kind and the cause.
    public var description: String {
        "\(url.redactingLogins): \(message)"
    }
}
