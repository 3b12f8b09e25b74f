import Dispatch
import FoundationEssentials
import SlipstreamHTTP

/// Starts downloads: segmented over several connections where the server supports ranges,
/// one streamed connection where it does not, always straight to disk.
///
/// ```swift
/// // One call: returns once the file is complete under its final name.
/// let result = try await Downloader().download(from: "https://example.test/big.iso", to: .file("big.iso"))
///
/// // Or start it, watch it, and await it (any number of tasks may read `events`).
/// let download = try Downloader().start("https://example.test/big.iso", to: .file("big.iso"))
/// for await event in download.events { ... }
/// let result = try await download.value
/// ```
///
/// Cancelling the task that awaits a download cancels the download: its `.part` file and
/// resume record stay (as after `Download.cancel()`), so that starting it again resumes it,
/// and the await throws `DownloadError` with the `.cancelled` code.
///
/// Rate limits: `configuration.bytesPerSecondLimit` holds each download to its own limit;
/// a `RateLimiter` in `configuration.sharedRateLimiter` is shared by every download this
/// downloader starts (and by any other download given the same limiter), e.g. one limit for
/// the whole process.
public final class Downloader: Sendable {
    private let engine: HTTPEngine
    /// The settings every download of this downloader uses.
    public let configuration: DownloadConfiguration

    /// A downloader on `engine` (default: the shared one) with `configuration`.
    public init(engine: HTTPEngine = .shared, configuration: DownloadConfiguration = DownloadConfiguration()) {
        self.engine = engine
        var configuration = configuration
        configuration.connections = min(max(configuration.connections, 1), 64)
        configuration.minimumSplitSize = max(configuration.minimumSplitSize, 1)
        self.configuration = configuration
    }

    /// Starts downloading `url` to `destination`. Throws at once only for a URL that is not
    /// http, https, ftp, ftps or sftp, or has no host; everything else, a destination that cannot work
    /// included, is reported through the download's events and `value`. Does no disk work on
    /// the calling thread.
    public func start(_ url: String, to destination: DownloadDestination) throws(DownloadError) -> Download {
        try start(url, to: destination, permits: nil)
    }

    /// Starts downloading `url` (see `start(_:to:)`).
    public func start(_ url: URL, to destination: DownloadDestination) throws(DownloadError) -> Download {
        try start(url.absoluteString, to: destination, permits: nil)
    }

    /// Downloads `url` to `destination` and returns the result once every byte is on disk
    /// under the final name; throws the `DownloadError` that stopped it otherwise. Cancelling
    /// the awaiting task cancels the download (its files kept, to be resumed) and throws
    /// `.cancelled`.
    public func download(from url: String, to destination: DownloadDestination) async throws(DownloadError) -> DownloadResult {
        try await start(url, to: destination).value
    }

    /// Downloads `url` to `destination` (see `download(from:to:)` taking a `String`).
    public func download(from url: URL, to destination: DownloadDestination) async throws(DownloadError) -> DownloadResult {
        try await download(from: url.absoluteString, to: destination)
    }

    /// `start`, with the download's connections counted against `permits` (whose first
    /// permit the caller holds for it) and, with `observer`, every event handed to it on the
    /// thread that tells it instead of to the download's `events`.
    func start(
        _ url: String, to destination: DownloadDestination, permits: ConnectionPermits?,
        observer: (@Sendable (DownloadEvent) -> Void)? = nil
    ) throws(DownloadError) -> Download {
        if let refusal = HTTPURL.refusal(of: url) {
            throw DownloadError(.invalidURL, "\(url): \(refusal)", url: url)
        }
        let events = observer.map { EventChannel(forwardingTo: $0) } ?? EventChannel<DownloadEvent>()
        let job = DownloadJob(
            engine: engine, configuration: configuration, url: url,
            destination: destination, events: events, permits: permits)
        // Looking for a download to resume and making the new file read the disk: not on the
        // caller's thread (it may be the Swift concurrency pool's).
        DispatchQueue.global().async { job.begin() }
        return Download(job: job, events: EventStream(events))
    }
}
