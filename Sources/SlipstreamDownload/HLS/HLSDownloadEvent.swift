/// What happens to an HLS download, in order: any `notice`, `planned` once the playlists are
/// read, any number of `progress`, `retrying` and `notice`, then exactly one of `finished` or
/// `failed` (a download that fails before its plan tells no `planned`).
public enum HLSDownloadEvent: Sendable {
    /// The playlists are read and the variant chosen: what will be fetched and joined.
    case planned(HLSDownloadInfo)
    /// A snapshot of progress (the newest wins when the reader lags).
    case progress(HLSDownloadProgress)
    /// A resource's request failed and will be tried again after `delay`. The error's message
    /// names the resource ("segment 12 (URL): ...").
    case retrying(error: DownloadError, attempt: Int, delay: Duration)
    /// Something a person should know that does not stop the download, e.g. that the part
    /// folder held another playlist's files, so the download starts over.
    case notice(String)
    /// Every resource is fetched and joined: the file is in place.
    case finished(HLSDownloadResult)
    /// The download stopped for this reason.
    case failed(DownloadError)
}

extension HLSDownloadEvent: CoalescibleEvent {
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

/// What an HLS download fetches, once its playlists are read.
public struct HLSDownloadInfo: Sendable, Equatable {
    /// The media playlist's URL: the chosen variant's, when the URL given is a master playlist.
    public var playlistURL: String
    /// The media segments.
    public var segmentCount: Int
    /// The stream's duration, as its playlist gives it.
    public var duration: Duration
    /// The resources to fetch: segment files, init sections and AES-128 keys (fewer files than
    /// segments where segments are byte ranges of one file).
    public var resourceCount: Int
    /// Resources an earlier run left in the part folder, not fetched again.
    public var resumedResources: Int
    /// Their size in bytes.
    public var resumedBytes: Int64
    /// The part folder (the output's path + `.hls.part`), which keeps each resource until
    /// the join.
    public var partFolder: String
}

/// A snapshot of a running HLS download.
public struct HLSDownloadProgress: Sendable, Equatable {
    /// Resources on disk, those of earlier runs included.
    public var completedResources: Int
    /// Resources in all (0 before the plan).
    public var resourceCount: Int
    /// Bytes on disk: of the resources done (earlier runs' included) and of those under way.
    public var completedBytes: Int64
    /// The bytes the stream is known to have so far: the sizes of the resources done and of
    /// those under way (as their servers give them). Every byte, once every resource has started.
    public var knownBytes: Int64
    /// The recent speed in bytes per second, over the resources under way.
    public var bytesPerSecond: Double

    /// Creates a snapshot.
    public init(completedResources: Int, resourceCount: Int, completedBytes: Int64, knownBytes: Int64, bytesPerSecond: Double) {
        self.completedResources = completedResources
        self.resourceCount = resourceCount
        self.completedBytes = completedBytes
        self.knownBytes = knownBytes
        self.bytesPerSecond = bytesPerSecond
    }

    /// The fraction of the resources done, 0...1 (0 before the plan).
    public var fractionCompleted: Double {
        resourceCount == 0 ? 0 : Double(completedResources) / Double(resourceCount)
    }
}

/// A finished HLS download.
public struct HLSDownloadResult: Sendable, Equatable {
    /// The URL the download was started with.
    public var url: String
    /// The media playlist's URL (the chosen variant's).
    public var playlistURL: String
    /// The joined file's path.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// The media segments joined.
    public var segmentCount: Int
    /// The stream's duration, as its playlist gives it.
    public var duration: Duration
    /// Resources fetched in this run.
    public var fetchedResources: Int
    /// Resources an earlier run had fetched.
    public var resumedResources: Int
}
