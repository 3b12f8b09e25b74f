import SlipstreamHTTP

/// How a download runs. Every setting has a documented default.
public struct DownloadConfiguration: Sendable {
    /// Connections to open at most when the server supports ranges, 1 to 64. Default 8.
    public var connections = 8
    /// The smallest part split off a running connection's range for an idle one, in bytes.
    /// Default 1 MiB.
    public var minimumSplitSize: Int64 = 1 << 20
    /// Other URLs of the same file (mirrors), in order of preference, fetched from at the same
    /// time as the URL the download starts with. The first request goes to that URL; when it fails (whatever the reason: a refused
    /// connection, a name that does not resolve, TLS, a timeout, an error status such as 404 or
    /// 503, a broken range answer) the next mirror is asked at once, with a `.notice` event,
    /// and retries wait only once every source has failed (the download fails when they have
    /// all failed their retries, naming the URL's failure and the mirrors'). The source whose
    /// answer is taken defines the file, and the resume record names it; a source that failed
    /// first gets no connections.
    /// Each other mirror's answers must match that answer's size (and ETag, where both give
    /// one); a mirror that serves another file, answers a range wrongly, gives an error status
    /// such as 404 or fails three times in a row is dropped (with a `.notice` event) and its
    /// ranges go to the other sources; after a failure it gets no connection for the retry
    /// delay. A mirror's connection that has sent nothing 2 s after its request, while the
    /// other sources deliver and have nothing else left to fetch, gives its range to them
    /// (counted as a failure). Connections are shared out in proportion to each
    /// source's speed per connection. Used only when the server supports ranges (apart from
    /// the first request). A resume asks the source its record names first, then the others
    /// in order, and resumes only where the record's ETag or Last-Modified proves the file the
    /// same (its size alone, with `trustSize`, only from the URL the record names). Default
    /// none.
    public var mirrors: [String] = []
    /// The largest file to download, in bytes: a larger one fails with `.tooLarge`, before its
    /// body when the server gives its size, else as soon as it passes the limit (and what was
    /// written is removed). Default nil: no limit.
    public var maxFileSize: Int64?
    /// Replace an existing output file. Default false: an existing file is an error.
    public var overwrite = false
    /// Fetch the file again only if the server says it changed since the file already there
    /// was written: the first request carries `If-Modified-Since` (the file's modification
    /// time) and `If-None-Match` (the ETag kept in the file's `user.slipstream.etag` extended
    /// attribute, where the filesystem has them). A `304 Not Modified` leaves the file alone
    /// (the result says `notModified`); a changed file replaces it. Implies `remoteTime`.
    /// Default false. The file looked at is the one the URL names (or the destination file).
    public var timestamping = false
    /// Give the finished file the server's `Last-Modified` as its modification time, and keep
    /// its ETag in the `user.slipstream.etag` extended attribute (where the filesystem has
    /// them), for a later `timestamping` run. Default false.
    public var remoteTime = false
    /// Extra request header fields, sent on every request.
    public var headers = HTTPHeaders()
    /// A proxy URL (`http://`, `https://`, `socks4://`, `socks5://`, `socks5h://`); nil for none.
    public var proxy: String?
    /// The `User-Agent`. Default `Slipstream/<version>`.
    public var userAgent = "Slipstream/\(SlipstreamVersion.string)"
    /// The IP version to connect over (`.v4`, `.v6`). Default `.any`.
    public var ipVersion = IPVersion.any
    /// How long to wait for each connection (libcurl counts whole milliseconds, at least 1).
    /// Default 30 seconds.
    public var connectTimeout = Duration.seconds(30)
    /// A connection that delivers nothing for this long is closed and its range handed to the
    /// others (and counted as a failure). Default 20 seconds.
    public var stallTimeout = Duration.seconds(20)
    /// Close a connection that runs below a third of the median connection speed while work
    /// remains, handing its range to faster ones (not counted as a failure). Default true.
    public var dropSlowConnections = true
    /// TLS trust (`security.verifiesPeer`, a CA file or folder, a pinned key), a login and
    /// cookies for every request. The login is sent only to the servers of the download's URL
    /// and its mirrors, never to one a redirect leads to. Default: verified TLS, no login, no
    /// cookies.
    public var access = TransferAccess()
    /// The servers the login may go to, where not those of the download's URL and mirrors:
    /// the downloads of an HLS stream's segments send it only to the playlist's server, never
    /// to the CDN a segment's URL names. Default nil.
    package var loginOrigins: [URLOrigin]?
    /// Allocate the whole file on disk before the first byte arrives (fallocate), so that a
    /// disk without room is refused at once and cannot fill up mid-download. Default true;
    /// false leaves a sparse file that takes space as it fills.
    public var preallocate = true
    /// A digest the finished file must have before it is renamed into place; on a mismatch the
    /// download fails with `.checksum` and the file stays `FILE.part`. Default none.
    public var checksum: Checksum?
    /// The time between durable resume records, each after an fdatasync of the data (at least
    /// a second). They matter after a crash or power loss; after a killed process the live
    /// record (ten times a second, no fsync) already has everything. Default 10 seconds:
    /// frequent fsyncs would make a fast download wait for the disk.
    public var durableRecordInterval = Duration.seconds(10)
    /// Resume from `FILE.part` and its resume records when they exist. Default true.
    public var resume = true
    /// Resume even when the server gives no ETag or Last-Modified to prove the file unchanged,
    /// trusting an equal size and the same URL. Default false (such a download starts over).
    public var trustSize = false
    /// Tries after a failure, per streak of failures without progress (new bytes for the file
    /// end the streak, and a connection that took some before it failed starts a new one).
    /// Connections that fail while a retry waits join that retry. Default 5.
    public var retries = 5
    /// The wait before the first retry; doubled for each next one, with jitter. Default 0.5
    /// seconds.
    public var retryDelay = Duration.milliseconds(500)
    /// The longest wait before a retry, `Retry-After` included. Default 30 seconds.
    public var maxRetryDelay = Duration.seconds(30)
    /// Memory for bytes received but not yet written, in bytes, for the whole download: what
    /// the disk needs to ride out a slow write, whatever the number of connections (they share
    /// it). When it is full, the disk is behind: the transfers pause until the writer has room
    /// again. At least one slot (the receive buffer's size, 128 KiB) is used. Default 1 MiB
    /// (eight slots; slices that continue each other share a slot and make one write).
    public var writeBufferSize = 1 << 20
    /// Memory for the ranges ahead of the write position of a stream destination
    /// (`DownloadDestination.stream`), in bytes, at least 1 MiB: the reorder buffer, allocated
    /// once. Connections that run further ahead pause until the writing catches up. Each
    /// connection is handed ranges of half the buffer's share (2 MiB with 8 connections): a
    /// smaller buffer means more requests. Default 32 MiB (16 MiB measured 11% slower than
    /// to a file on a link limited per connection, 32 MiB as fast).
    public var streamBufferSize = 32 << 20
    /// The most bytes per second this download receives, over all its connections together;
    /// nil (default) for no limit of its own. Held with a `RateLimiter` of its own, whose
    /// limit `Download.setBytesPerSecondLimit(_:)` changes while it runs.
    public var bytesPerSecondLimit: Int64?
    /// A limit this download shares with every other download given the same limiter (e.g. one
    /// for the whole process), on top of `bytesPerSecondLimit`. Default nil: none.
    public var sharedRateLimiter: RateLimiter?

    /// Called on the writer's thread before each write with its offset and size: a seam for
    /// tests that need a slow disk. Default none.
    var beforeWrite: (@Sendable (Int64, Int) -> Void)?

    /// The defaults.
    public init() {}

    /// Whether an existing file of the same name may be replaced.
    var replacesExisting: Bool { overwrite || timestamping }

    var retryPolicy: RetryPolicy {
        RetryPolicy(retries: retries, baseDelay: retryDelay.seconds, maxDelay: maxRetryDelay.seconds)
    }

    /// The disk writer's slots for a download of `url`: their size (that of libcurl's slices,
    /// so that one slice fits in one) and how many (`writeBufferSize` of them, at least one,
    /// whatever the number of connections).
    func writerSlots(for url: String) -> (size: Int, count: Int) {
        let size = request(url, range: nil, loginOrigins: []).receiveBufferSize
        return (size, max(1, writeBufferSize / size))
    }

    /// A request for `url` with these settings; the login only where `url`'s origin is one of
    /// `loginOrigins` (those of the URLs the download was given). Its slices are sized for the
    /// limits of `limiters` now (default: the limits configured).
    func request(
        _ url: String, range: HTTPRequest.ByteRange?, loginOrigins: [URLOrigin], limiters: [RateLimiter]? = nil
    ) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.range = range
        request.allowsFileProtocols = true
        request.headers = headers
        request.proxy = proxy
        request.userAgent = userAgent
        request.connectTimeout = connectTimeout
        request.ipVersion = ipVersion
        // Stalls are found by the download's own watchdog, for every connection alike.
        request.lowSpeedLimit = 0
        request.access = access.scoped(to: url, loginOrigins: loginOrigins)
        // Under a rate limit, slices no bigger than the limiter's bucket (where libcurl allows),
        // so that one slice never overshoots it.
        let limits =
            limiters.map { $0.compactMap(\.bytesPerSecond) }
            ?? [bytesPerSecondLimit, sharedRateLimiter?.bytesPerSecond].compactMap { $0 }
        if let slowest = limits.min() {
            let depth = Int(Double(slowest) * RateLimiter.depthSeconds)
            request.receiveBufferSize = min(request.receiveBufferSize, max(depth, 16 << 10))
        }
        return request
    }
}
