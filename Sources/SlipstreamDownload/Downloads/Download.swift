import SlipstreamHTTP
import Synchronization

/// A running download. Read its `events`, await its `value`, or `cancel()` it. Safe to use
/// from any thread.
public final class Download: Sendable {
    /// What happens to the download; see `DownloadEvent`. Any number of tasks may read it at
    /// once, each getting every event from the start (a reader that starts late included);
    /// nothing but progress is ever dropped, and only an older unread snapshot.
    public let events: EventStream<DownloadEvent>
    private let job: DownloadJob

    init(job: DownloadJob, events: EventStream<DownloadEvent>) {
        self.job = job
        self.events = events
    }

    /// The result, once every byte is on disk under the final name; throws the
    /// `DownloadError` that stopped the download otherwise. Cancelling the awaiting task
    /// cancels the download (as `cancel()`: its files stay, to be resumed) and throws `.cancelled`.
    public var value: DownloadResult {
        get async throws(DownloadError) { try await job.result() }
    }

    /// A snapshot of progress now.
    public var progress: DownloadProgress { job.progress() }

    /// What the download is doing now, piece by piece and connection by connection (see
    /// `DownloadDetails`): built when asked for, at a cost in pieces and connections, never in
    /// bytes. After the end, what it had at the end, without connections.
    public var details: DownloadDetails { job.details() }

    /// A reader of the download while it runs, at `offset`, reading `bytesPerSecond` when
    /// known (a player's bit rate): its reads return bytes as soon as they are written, and the
    /// download fetches the bytes ahead of it first (see `DownloadReader`). Any number of
    /// readers may read one download at once; after the end they read the finished file.
    public func reader(at offset: Int64 = 0, bytesPerSecond: Double? = nil) -> DownloadReader {
        DownloadReader(reading: job.reading, at: offset, bytesPerSecond: bytesPerSecond)
    }

    /// Changes the download's own limit (`DownloadConfiguration.bytesPerSecondLimit`) at once:
    /// its running transfers follow within a fraction of a second. Nil lifts it; a shared
    /// limiter, if any, still holds.
    public func setBytesPerSecondLimit(_ bytesPerSecond: Int64?) { job.setBytesPerSecondLimit(bytesPerSecond) }

    /// Stops every transfer; the download fails with `.cancelled`, and keeps what a resume
    /// needs: its `.part` file and one resume record beside it (`FILE.part.slipstream`; the
    /// error's `resumableFile` names the `.part`), so that starting the same download again
    /// resumes it. A download that wrote nothing yet leaves nothing. Safe to call at any time,
    /// more than once, and after the end (then it does nothing).
    public func cancel() { job.cancel(removingFiles: false) }

    /// Like `cancel()`, but leaves nothing: the `.part` file and its resume records go. After
    /// the end it does nothing: a finished file is never removed.
    public func cancelAndRemoveFiles() { job.cancel(removingFiles: true) }
}
