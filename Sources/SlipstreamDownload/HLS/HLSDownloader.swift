import SlipstreamHTTP

/// Downloads HLS streams that have ended: reads the playlists (a master playlist's variant
/// chosen by `HLSDownloadConfiguration.variant`), fetches every resource (segment files, init
/// sections, AES-128 keys) in parallel through a `DownloadQueue`, then joins them in order into
/// one file: MPEG-TS segments one after the other, an init section followed by its fragments,
/// packed audio as one stream; AES-128 segments decrypted.
///
/// ```swift
/// // One call: returns once the joined file is in place.
/// let result = try await HLSDownloader().download(from: "https://example.test/show/index.m3u8", to: "show.ts")
///
/// // Or start it, watch it, and await it (any number of tasks may read `events`).
/// let download = try HLSDownloader().start("https://example.test/show/index.m3u8", to: "show.ts")
/// for await event in download.events { ... }
/// let result = try await download.value
/// ```
///
/// The output's offsets are unknown until every segment's size is, so each resource is a
/// download of its own into the part folder `FILE.hls.part` (with its own `.part` file and
/// resume records); the join reads them from there and the folder goes once the file is in
/// place. An interrupted download (cancelled, failed, or the program killed) keeps the
/// folder: starting the same download again fetches only what is missing, unless the playlist
/// changed (then it starts over). A live playlist is refused (`.liveStream`): it has no end to
/// download to.
///
/// Cancelling the task that awaits a download cancels the download (its part folder kept), and
/// the await throws `DownloadError` with the `.cancelled` code.
public final class HLSDownloader: Sendable {
    private let engine: HTTPEngine
    /// The settings every download of this downloader uses.
    public let configuration: HLSDownloadConfiguration

    /// A downloader on `engine` (default: the shared one) with `configuration`.
    public init(engine: HTTPEngine = .shared, configuration: HLSDownloadConfiguration = HLSDownloadConfiguration()) {
        self.engine = engine
        var configuration = configuration
        configuration.maxConcurrentDownloads = max(configuration.maxConcurrentDownloads, 1)
        configuration.connectionsPerHost = max(configuration.connectionsPerHost, 1)
        self.configuration = configuration
    }

    /// Starts downloading the stream of the playlist at `url` into the file `path`. Throws at
    /// once only for a URL that is not http, https, ftp, ftps or sftp, or has no host;
    /// everything else is reported through the download's events and `value`. Does no disk
    /// work on the calling thread.
    public func start(_ url: String, to path: String) throws(DownloadError) -> HLSDownload {
        if let refusal = HTTPURL.refusal(of: url) {
            throw DownloadError(.invalidURL, "\(url): \(refusal)", url: url)
        }
        return HLSDownload(run: HLSDownloadRun(engine: engine, configuration: configuration, url: url, output: path))
    }

    /// Downloads the stream of the playlist at `url` into the file `path` and returns the
    /// result once the joined file is in place; throws the `DownloadError` that stopped it
    /// otherwise. Cancelling the awaiting task cancels the download (its part folder kept) and
    /// throws `.cancelled`.
    public func download(from url: String, to path: String) async throws(DownloadError) -> HLSDownloadResult {
        try await start(url, to: path).value
    }
}
