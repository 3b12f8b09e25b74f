import Synchronization

/// A running HLS download (see `HLSDownloader`). Read its `events`, await its `value`, or
/// `cancel()` it. Safe to use from any thread.
public final class HLSDownload: Sendable {
    /// What happens to the download; see `HLSDownloadEvent`. Any number of tasks may read it
    /// at once, each getting every event from the start (a reader that starts late included);
    /// nothing but progress is ever dropped, and only an older unread snapshot.
    public let events: EventStream<HLSDownloadEvent>
    private let run: HLSDownloadRun
    private let task: Task<Result<HLSDownloadResult, DownloadError>, Never>

    init(run: HLSDownloadRun) {
        self.run = run
        events = EventStream(run.events)
        task = Task { await run.run() }
    }

    /// The result, once the joined file is in place; throws the `DownloadError` that stopped
    /// the download otherwise (a resource's failure names it: "segment 12 (URL): ..."). Cancelling
    /// the awaiting task cancels the download (as `cancel()`) and throws `.cancelled`.
    public var value: HLSDownloadResult {
        get async throws(DownloadError) {
            let outcome = await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            return try outcome.get()
        }
    }

    /// Its resources as a player takes them while it runs (`play URL.m3u8 --keep FILE`).
    package var kept: HLSKeptResources { run.kept }

    /// A snapshot of progress now (all zeros before the plan).
    public var progress: HLSDownloadProgress { run.progress }

    /// Stops every transfer; the download fails with `.cancelled`, and its part folder stays
    /// (the error's `resumableFile`), so that starting the same download again fetches only
    /// what is missing. Safe to call at any time, more than once; once the join has begun it
    /// does nothing.
    public func cancel() { task.cancel() }
}
