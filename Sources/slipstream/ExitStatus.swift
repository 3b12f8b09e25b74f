import SlipstreamDownload

/// The documented exit statuses of `slipstream`.
enum ExitStatus: Int32 {
    /// Everything worked.
    case success = 0
    /// A failure with no more specific status.
    case failure = 1
    /// Bad arguments, or a URL that is malformed or not http/https.
    case usage = 2
    /// The network failed: resolve, connect, TLS, timeout, connection lost.
    case network = 3
    /// The server answered with an error status, or broke its range answers.
    case http = 4
    /// A file or disk failure: bad output path, no space, write error.
    case disk = 5

    init(_ error: DownloadError) {
        switch error.code {
        case .invalidURL: self = .usage
        case .network: self = .network
        case .http: self = .http
        case .output, .noSpace, .disk: self = .disk
        default: self = .failure
        }
    }
}
