import SlipstreamHTTP

/// What happens to a download, in order: `started`, any number of `progress`, then exactly
/// one of `finished` or `failed`.
public enum DownloadEvent: Sendable {
    /// The server answered and the output file is open.
    case started(DownloadInfo)
    /// A snapshot of progress (at most ten a second; the newest wins when the reader lags).
    case progress(DownloadProgress)
    /// Every byte is on disk under its final name.
    case finished(DownloadResult)
    /// The download stopped for this reason.
    case failed(DownloadError)
    /// Something a person should know that does not stop the download, e.g. that the remote
    /// file changed since the `.part` was written, so the download starts over. Every URL's
    /// password in it is `***`.
    case notice(String)
    /// A request failed and will be tried again after `delay`: no connection opens before then
    /// (those still running carry on, and any of them failing meanwhile joins this retry).
    case retrying(error: DownloadError, attempt: Int, delay: Duration)
}

extension DownloadEvent: CoalescibleEvent {
    /// What a newer event replaces an unread older one of: only progress.
    public enum CoalescingKey: Hashable, Sendable {
        /// A progress snapshot.
        case progress
    }

    /// `.progress` for a progress snapshot (the newest unread one wins), else nil.
    public var coalescingKey: CoalescingKey? {
        if case .progress = self { .progress } else { nil }
    }
}

/// What the first response told about the download.
public struct DownloadInfo: Sendable, Equatable {
    /// The file being written (`path` + `.part` until the end).
    public var path: String
    /// The size in bytes, when known.
    public var totalBytes: Int64?
    /// Whether the server serves byte ranges, so several connections are used.
    public var segmented: Bool
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// Bytes kept from an earlier run (0 for a fresh download).
    public var resumedBytes: Int64
}

/// A snapshot of a running download.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes written to disk.
    public var completedBytes: Int64
    /// The size in bytes, when known.
    public var totalBytes: Int64?
    /// The recent speed in bytes per second (over the last two seconds or so).
    public var bytesPerSecond: Double
    /// Connections transferring now.
    public var activeConnections: Int

    /// Creates a snapshot.
    public init(completedBytes: Int64, totalBytes: Int64?, bytesPerSecond: Double, activeConnections: Int) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.activeConnections = activeConnections
    }

    /// Seconds left at the recent speed, when both are known.
    public var secondsRemaining: Double? {
        guard let totalBytes, bytesPerSecond > 0 else { return nil }
        return Double(totalBytes - completedBytes) / bytesPerSecond
    }

    /// The fraction done, 0...1, when the size is known.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        return totalBytes == 0 ? 1 : Double(completedBytes) / Double(totalBytes)
    }
}

/// A finished download.
public struct DownloadResult: Sendable, Equatable {
    /// The URL the download was started with.
    public var url: String
    /// The final path of the file.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// Whether several connections could be used.
    public var segmented: Bool
    /// Bytes received in this run, including any fetched twice after a failed connection.
    public var bytesReceived: Int64
    /// Bytes kept from an earlier run.
    public var resumedBytes: Int64
    /// The server said the file already there is unchanged (`DownloadConfiguration.timestamping`):
    /// it was left as it was, and `bytes` is its size.
    public var notModified = false
}
