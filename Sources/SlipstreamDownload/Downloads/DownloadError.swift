import SlipstreamCore
import SlipstreamHTTP

/// A failed download: the kind of failure, a message naming the URL or file, the facts a
/// program needs to act on it (the URL, the file, where the bytes so far are kept), and the
/// underlying cause. Messages state facts; what a person should do about them is the
/// application's to say (the command line maps codes to advice).
///
/// Two errors are equal when their facts are (code, message, URL, path, the file to resume
/// from); the underlying error is not compared.
public struct DownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure: `.network`, `.httpStatus`, `.noSpace` ... New codes may be added:
    /// switch with a `default`.
    public typealias Code = ErrorCode<DownloadError>

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
    /// The `.part` file that keeps the bytes fetched so far, when starting the same download
    /// again resumes from it; nil when nothing was kept (or a fresh start would be needed).
    /// Beside it is its resume record, `FILE.part.slipstream`: after a stop that wrote
    /// everything it was given (a cancel, a network failure) those two files are all the
    /// download leaves; after a failed write the live record `FILE.part.slipstream.live` may
    /// stay too, as it may claim more.
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

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: DownloadError, b: DownloadError) -> Bool {
        a.code == b.code && a.message == b.message && a.url == b.url && a.path == b.path
            && a.resumableFile == b.resumableFile
    }

    /// Hashes the facts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(url)
        hasher.combine(path)
        hasher.combine(resumableFile)
    }

    /// The download error for a transfer error.
    init(_ error: HTTPError) {
        let code: Code =
            switch error.code {
            case .malformedURL, .unsupportedScheme: .invalidURL
            case .rangeNotHonoured: .rangeNotHonoured
            case .httpStatus, .invalidResponse, .tooManyRedirects, .loginDenied, .remoteFileNotFound: .httpStatus
            case .cancelled: .cancelled
            default: .network
            }
        self.init(code, error.description, url: error.url, underlying: error)
    }
}

extension ErrorCode where Domain == DownloadError {
    /// The URL is malformed or not http, https, ftp, ftps or sftp.
    public static var invalidURL: Self { Self("invalid url") }
    /// The network failed (resolve, connect, TLS, timeout, connection lost, ...).
    public static var network: Self { Self("network") }
    /// The server gave no usable answer: an error status (see `http?.status`), a malformed
    /// response, too many redirects, a login refused by an FTP or SSH server, no such file on
    /// an FTP or SFTP server, or no response at all.
    public static var httpStatus: Self { Self("http status") }
    /// The server answers range requests with other bytes than asked for, again and again:
    /// one connection (no ranges) may still work.
    public static var rangeNotHonoured: Self { Self("range not honoured") }
    /// The output path is unusable: a folder, in a missing folder, not writable, or written
    /// by another download (of the same queue, or holding its `.part` file).
    public static var output: Self { Self("output") }
    /// The output file exists, and `overwrite` is off (`path` names it).
    public static var exists: Self { Self("exists") }
    /// The disk has no room for the file.
    public static var noSpace: Self { Self("no space") }
    /// Writing, renaming or opening a file failed.
    public static var disk: Self { Self("disk") }
    /// The finished file does not have the expected checksum.
    public static var checksum: Self { Self("checksum") }
    /// The file is larger than `DownloadConfiguration.maxFileSize`: refused before its body
    /// when the server gave its size, else stopped once it passed it (what was written is
    /// removed).
    public static var tooLarge: Self { Self("too large") }
    /// A checksum to check against is not one: an unknown algorithm, or a digest of the
    /// wrong length or with other characters than hex digits.
    public static var invalidChecksum: Self { Self("invalid checksum") }
    /// A list of downloads (an input or session file) cannot be read: damaged, or not in
    /// the format of `DownloadList`.
    public static var input: Self { Self("input") }
    /// The download was cancelled.
    public static var cancelled: Self { Self("cancelled") }
    /// A `DownloadQueue` has no download of that id (it ended, or was never added).
    public static var unknownDownload: Self { Self("unknown download") }
    /// A change a `DownloadQueue` makes only to a download that waits (queued or paused) was
    /// asked of one that runs: pause it first.
    public static var running: Self { Self("running") }
    /// The reader of a stream destination (`DownloadDestination.stream`) closed it before
    /// the end (a broken pipe, such as `| head`).
    public static var outputClosed: Self { Self("output closed") }
    /// An HLS stream cannot be downloaded as its playlists say (`HLSDownloader`): a
    /// playlist that is malformed, too large, lists itself or no segment, chooses a variant
    /// that is a master playlist again or one it lacks, or uses another encryption than
    /// AES-128; or a fetched resource that does not fit it (a byte range past a segment's
    /// end, a key that is not 16 bytes, a segment that does not decrypt).
    public static var invalidStream: Self { Self("invalid stream") }
    /// The HLS playlist is live (no `EXT-X-ENDLIST`, not `VOD`): it has no end to download
    /// to (`HLSDownloader`).
    public static var liveStream: Self { Self("live stream") }
}
