import SlipstreamHTTP

/// What happens to the downloads of a `DownloadQueue`. For each download, in order: `queued`,
/// then `started`, any number of `progress`, `retrying` and `notice`, and one of `finished`,
/// `failed` or `paused` (after `paused`, a resumed download is `queued` again).
public enum DownloadQueueEvent: Sendable {
    /// Added to the queue, or resumed: it waits for its turn.
    case queued(DownloadQueue.ID)
    /// The server answered and the output file is open.
    case started(DownloadQueue.ID, DownloadInfo)
    /// A snapshot of progress. A reader that lags sees only the newest one of each download.
    case progress(DownloadQueue.ID, DownloadProgress)
    /// A request failed and will be tried again after `delay`.
    case retrying(DownloadQueue.ID, error: DownloadError, attempt: Int, delay: Duration)
    /// Something a person should know that does not stop the download.
    case notice(DownloadQueue.ID, String)
    /// Stopped by `pause`, keeping its `.part` file and resume records; its connections are free.
    case paused(DownloadQueue.ID)
    /// Every byte is on disk under its final name.
    case finished(DownloadQueue.ID, DownloadResult)
    /// It stopped for this reason (`.cancelled` after `cancel`), and is out of the queue.
    case failed(DownloadQueue.ID, DownloadError)

    /// The download the event is about.
    public var id: DownloadQueue.ID {
        switch self {
        case .queued(let id), .started(let id, _), .progress(let id, _), .retrying(let id, _, _, _),
            .notice(let id, _), .paused(let id), .finished(let id, _), .failed(let id, _):
            id
        }
    }

    /// Whether it is the download's last: `.finished` or `.failed`.
    var isEnd: Bool {
        switch self {
        case .finished, .failed: true
        default: false
        }
    }
}

extension DownloadQueueEvent: CoalescibleEvent {
    /// A progress snapshot replaces an unread one of the same download.
    public var coalescingKey: DownloadQueue.ID? {
        if case .progress(let id, _) = self { id } else { nil }
    }
}

/// The events of a `DownloadQueue` (all of them, or one download's), for one reader: lifecycle
/// events are never dropped, progress is newest-wins per download. It ends when the reader's
/// task is cancelled, or when the download it follows has ended.
public typealias DownloadQueueEvents = EventStream<DownloadQueueEvent>
