import SlipstreamCore

/// A failed transfer: what kind of failure, the URL it concerns and the underlying cause.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure: `.connect`, `.timeout`, `.httpStatus` ... New codes may be added:
    /// switch with a `default`.
    public typealias Code = ErrorCode<HTTPError>

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

extension ErrorCode where Domain == HTTPError {
    /// The URL could not be parsed.
    public static var malformedURL: Self { Self("malformed url") }
    /// The URL's scheme is not `http`, `https`, `ftp`, `ftps` or `sftp`.
    public static var unsupportedScheme: Self { Self("unsupported scheme") }
    /// The host name (or the proxy's) did not resolve.
    public static var resolve: Self { Self("resolve") }
    /// No TCP connection could be made.
    public static var connect: Self { Self("connect") }
    /// The proxy refused or failed.
    public static var proxy: Self { Self("proxy") }
    /// TLS handshake or certificate verification failed.
    public static var tls: Self { Self("tls") }
    /// The connect timeout passed, or the transfer stayed below the low-speed limit too long.
    public static var timeout: Self { Self("timeout") }
    /// More redirects than the request allows.
    public static var tooManyRedirects: Self { Self("too many redirects") }
    /// The connection closed, or failed, before the whole body arrived.
    public static var connectionLost: Self { Self("connection lost") }
    /// The server answered with a status the caller cannot use (see `status`).
    public static var httpStatus: Self { Self("http status") }
    /// A range request got an answer that is not the asked-for range.
    public static var rangeNotHonoured: Self { Self("range not honoured") }
    /// The response is malformed in a way that makes it unusable.
    public static var invalidResponse: Self { Self("invalid response") }
    /// The sink could not take the body (e.g. a disk write failed).
    public static var writeFailed: Self { Self("write failed") }
    /// The transfer was cancelled.
    public static var cancelled: Self { Self("cancelled") }
    /// An FTP or SSH server refused the login (user, password or key).
    public static var loginDenied: Self { Self("login denied") }
    /// An FTP or SFTP server has no such file.
    public static var remoteFileNotFound: Self { Self("remote file not found") }
    /// The SSH server's host is not in the known hosts file (and new hosts are not accepted).
    public static var unknownHostKey: Self { Self("unknown host key") }
    /// The SSH server's host key is not the one the known hosts file has for its host.
    public static var hostKeyMismatch: Self { Self("host key mismatch") }
    /// Any other libcurl failure.
    public static var other: Self { Self("transfer failed") }
}
