import SlipstreamHTTP

/// A download's decisions as a pure value: inputs in (answers, bodies, transfer ends, ticks of
/// the clock, permits, the writer's news, the caller's cancel), actions out (requests to start
/// or stop, files to open, events to tell, when to finish) for `DownloadJob` to carry out. No
/// I/O, no clock, no threads, no randomness but a seeded generator: every input sequence can
/// be replayed in a test.
///
/// Phases (`Phase`, each with what exists only in it): `probing` (the first request: size,
/// ranges, or proof that a resumed file is the same), then `streaming` (one connection, no
/// ranges, with what it wrote) or `segmented` (the piece map hands out ranges to
/// connections), then `finishing` (no transfer left; the writer's last write, the checksum and
/// the rename), then `done`. A failed probe or stream goes back to `probing`.
///
/// Invariants (checked by the tests over random input sequences): a byte is placed for
/// writing at most once; the file is renamed into place only when every byte was taken and
/// nothing failed; exactly one final event (`finished` or `failed`) is told, last.
struct DownloadStateMachine: Sendable {
    /// What the machine needs to know of the download's configuration.
    struct Settings: Sendable {
        /// The URL the download was started with (it defines the file).
        var url: String
        /// Other sources of the same file (`DownloadConfiguration.mirrors`).
        var mirrors: [String] = []
        /// Connections at most.
        var connections = 8
        var minimumSplitSize: Int64 = 1 << 20
        /// Seconds without a byte after which a connection counts as stalled.
        var stallTimeout = 20.0
        var dropSlowConnections = true
        var retryPolicy = RetryPolicy(retries: 5, baseDelay: 0.5, maxDelay: 30)
        /// Connections beyond the first need a permit of a host limit (`requestPermits`).
        var limitsHosts = false
        /// New files up to this size are held in memory and written at the end (no records).
        var heldFileSize = Self.defaultHeldFileSize
        /// 256 KiB: refetching so little after a crash costs less than a writer thread and records.
        static let defaultHeldFileSize: Int64 = 256 << 10
        /// Where the download goes unless its first answer names another file.
        var expectedPath = ""
        /// Whether a checksum is checked before the rename.
        var verifies = false
        /// The largest file taken, in bytes (`DownloadConfiguration.maxFileSize`).
        var maxFileSize: Int64?
        /// Set when the bytes are written in order (a stream destination): ranges are handed
        /// out lowest first, at most this many bytes each, so that the connections work just
        /// ahead of the write position; nothing is kept for a resume, and a stream (no ranges)
        /// that failed after its first bytes cannot start over. Nil: to a file.
        var inOrderPieceSize: Int64?

        init(url: String) { self.url = url }
    }

    /// Where the download is, with the body's bookkeeping in the phases that have one.
    enum Phase: Sendable {
        /// The first request: no body yet.
        case probing
        /// One connection, no ranges: what it wrote.
        case streaming(Stream)
        /// Ranges handed out to connections by the piece map.
        case segmented(PieceMap)
        /// No transfer left: the writer's last write, the checksum and the rename; the body
        /// fetched, if the first answer came.
        case finishing(Body?)
        /// Over: the final event was told.
        case done(Body?)
    }

    /// A body being fetched or fetched: one stream, or the pieces of a segmented download.
    enum Body: Sendable {
        case streamed(Stream)
        case segmented(PieceMap)
    }

    /// Why the machine closed a connection.
    enum DropReason: Sendable {
        case stalled
        /// A straggler: slower than the others at the watchdog's looks, or waiting at the end
        /// longer than an idle connection takes to bring its whole remainder (`endGameTakeover`).
        case slow
        /// Its mirror was dropped.
        case mirror
        /// A mirror's connection sent nothing `silentMirrorWait` seconds after its request while
        /// other connections delivered and one could take its range (`isSilentMirror`).
        case silent
        /// It made room for a connection where a reader waits (`yieldForReaders`).
        case yielded
    }

    /// Why a connection's transfer is paused (not a stall).
    enum PauseReason: Sendable {
        /// A rate limiter holds it back until it grants the slice.
        case rateLimit
        /// Every slot of the disk writer is taken: it waits for the disk (or a stream's reader).
        case disk
        /// Its bytes lie beyond a stream's reorder window while earlier ones are missing: it
        /// waits for the range at the write position, not for the disk.
        case order
    }

    /// A download to resume, as found on disk: its record and what of it is written.
    struct ResumePoint: Sendable {
        var record: ControlFile
        var written: ByteRanges
        var firstMissing: Int64
    }

    /// One transfer the machine asks for.
    struct Request: Sendable, Equatable {
        var connection: Int
        var url: String
        /// The first byte asked for.
        var start: Int64
        /// One past the last byte asked for; nil for an open-ended request (`bytes=START-`).
        var end: Int64?
        /// The validator for `If-Range` (a resuming probe).
        var ifRange: String?
        /// The file already there, for `If-Modified-Since` and `If-None-Match` (a conditional
        /// probe: `DownloadConfiguration.timestamping`).
        var unlessUnchanged: FileStamp?
    }

    /// The file to open for the first answer taken.
    struct FileOpening: Sendable, Equatable {
        /// The size, when known.
        var size: Int64?
        /// Ranges work: the file is filled piece by piece, with resume records.
        var segmented: Bool
        /// Reopen the `.part` of the resume point as it is (else a fresh file).
        var resuming: Bool
        /// Hold the (small, new) file in memory and write it once at the end.
        var held: Bool
        /// What is already written (a resume).
        var written: ByteRanges
        /// The file is empty (a 416 for `bytes=0-`): nothing to read.
        var empty = false
        /// The URL the first request asked: the download's, or the mirror it fell over to. An
        /// answer from there (not redirected) names the file as the download's URL does.
        var askedURL: String

        /// Whether resume records are kept: ranges work, the file is not held in memory, and a
        /// record can describe its size.
        var keepsRecords: Bool {
            segmented && !held && (size ?? 0) <= ControlFile.maxSize
        }
    }

    enum Action: Sendable {
        /// Start a transfer for a connection (register it with the rate limiters first).
        case request(Request)
        /// Stop a connection's transfer; it ends with `transferEnded`.
        case cancel(connection: Int)
        /// Let a paused transfer deliver again.
        case resume(connection: Int)
        /// Ask the host limit for up to this many permits; answer with `permitsGranted`.
        case requestPermits(Int)
        /// Give permits back (waking other downloads' waiters unless taken a moment ago).
        case releasePermits(Int, wakingWaiters: Bool)
        /// Close the file of a stream that failed (it restarts from zero, after the writer's
        /// last queued write).
        case closeFile
        /// Feed `retryDue` after this many seconds.
        case scheduleRetry(after: Double)
        case emit(DownloadEvent)
        /// Let the writer finish its queued writes (with a last durable record when
        /// `keepRecord`), then feed `writerFinished`.
        case finishWriter(keepRecord: Bool)
        /// Every byte is written: check the checksum if one is expected, rename the file into
        /// place (refusing an existing one unless overwriting), remove the records; then feed
        /// `completed`.
        case complete(path: String)
        /// The download failed: close the file; with `removingFiles`, remove the `.part` and
        /// its records.
        case discard(removingFiles: Bool)
        /// The outcome: wake everyone waiting for it.
        case finish(Result<DownloadResult, DownloadError>)
    }

    /// One connection: a transfer and the range it writes.
    struct Connection: Sendable {
        /// The index of its source in `mirrors`.
        var mirror = 0
        var assignment: Int?
        /// The first byte its request asked for.
        var requestStart: Int64
        /// One past the last byte its request asked for; nil for an open-ended request.
        var requestEnd: Int64?
        var started: Double
        var lastData: Double
        /// Bytes since the watchdog's last tick, and the speed it measured (bytes per second).
        var recentBytes: Int64 = 0
        /// Bytes it took for the file, over its life.
        var received: Int64 = 0
        /// When its first slice came, and the bytes of those after it: a mirror's first measure
        /// (`lookAtNewMirrors`), between the first slice and the last.
        var firstData: Double?
        var bytesAfterFirst: Int64 = 0
        /// The longest it went without a byte since its first, not counting the waits the
        /// download made it take (a full writer, a rate limit): a server that sends in bursts
        /// (nginx's `limit_rate` sends 2 MiB, then waits a tenth of a second) pauses that long
        /// between them, whatever its mean speed.
        var longestPause = 0.0
        var speed: Double?
        var slowTicks = 0
        var dropped: DropReason?
        var pausedFor: PauseReason?
        /// It took new ground for the file (bytes no attempt had taken): its failure starts a
        /// new streak, whatever else failed since (connections cut at the same moment have each
        /// made progress).
        var progressed = false

        /// Its speed from its request to `time` (bytes per second), once that is `span` seconds,
        /// it has sent bytes (one that has not answered yet is judged by its answer: a mirror
        /// without the file fails, not slows) and before the watchdog's first look (whose tick
        /// restarts `recentBytes`).
        func lifeSpeed(at time: Double, over span: Double) -> Double? {
            guard speed == nil, firstData != nil, time - started >= span else { return nil }
            return Double(recentBytes) / (time - started)
        }

        /// Its speed between its first slice and its last (bytes per second), once those are
        /// `span` seconds apart: a measure of a connection too young for the watchdog's.
        func sliceSpeed(over span: Double) -> Double? {
            guard let first = firstData, lastData - first >= span else { return nil }
            return Double(bytesAfterFirst) / (lastData - first)
        }
    }

    /// One source of the file: the URL started with (index 0), or a mirror.
    struct Mirror: Sendable {
        var url: String
        /// Bytes per second per connection, measured first by `lookAtNewMirrors`, then by the
        /// watchdog; and when it was last measured.
        var speed: Double?
        var measuredAt = 0.0
        /// Failures without a byte received in between.
        var failures = 0
        var dropped = false
        /// What its last failed first request said (for the error once every source failed).
        var probeFailure: String?
        /// After a failure that did not drop it, it gets no new connection before this time
        /// (the retry policy's delay for its failures in a row, without jitter).
        var restingUntil = 0.0
    }

    /// One connection written in order: bytes written, and the size when the server gave one.
    struct Stream: Sendable {
        var written: Int64 = 0
        var size: Int64?
        var completed = false
    }

    /// Wrong answers to range requests a download tolerates.
    static let maxRangeLies = 3
    /// Failures in a row (no byte in between) after which a mirror is dropped.
    static let maxMirrorFailures = 3
    /// Seconds between the watchdog's looks at the connections.
    static let tickInterval = 0.5

    let settings: Settings
    var phase = Phase.probing
    var resume: ResumePoint?
    /// The resume answer said the remote file changed: probe afresh when this probe ends.
    var restartFresh = false
    /// The file already there, fetched again only if the server says it changed.
    var existing: FileStamp?
    /// The server said the existing file is unchanged (`304 Not Modified`).
    var notModified = false
    /// The file opened for the first answer: where it goes in the end, and how it is kept.
    var path: String?
    var opening: FileOpening?
    var mirrors: [Mirror]
    /// The source the first request goes to: the download's URL, then, when that fails, the
    /// next mirror (`probeFailed`). Once an answer is taken, the source that defined the file
    /// (its size and ETag, the resume record's validators), which every other source must match.
    var reference = 0
    /// Sources whose first request failed since the last wait for a retry (each is asked once
    /// before a retry waits), and the shortest `Retry-After` among them (0 where one gave none).
    var probeRound = ProbeRound()
    /// The first failure of the download's URL, which the error names once every source failed.
    var firstProbeFailure: DownloadError?
    /// The ETag of the first answer, which every mirror's answers must match where they give one.
    var etag: String?
    var connections: [Int: Connection] = [:]
    var nextConnection = 1
    /// Consecutive failures without progress in between.
    var failureStreak = 0
    /// The most bytes any attempt at a stream got.
    var longestStream: Int64 = 0
    /// Retries waiting for their delay (one at a time: a failure while one waits joins it).
    var scheduledRetries = 0
    /// Range requests answered with something else. After the first, no connection is added
    /// while one is running; after `maxRangeLies`, the download fails.
    var rangeLies = 0
    /// Set when the download must stop: cancelled, a disk error, an unusable answer.
    var fatal: DownloadError?
    var removeFilesAtEnd = false
    var meter = SpeedMeter(start: 0)
    var lastProgressEvent = -1.0
    var bytesReceived: Int64 = 0
    /// When the last byte of any connection came.
    var lastByte = -Double.infinity
    var resumedBytes: Int64 = 0
    /// Speeds of connections that ended lately, so the last straggler has company to be compared with.
    var recentSpeeds: [(time: Double, speed: Double, mirror: Int)] = []
    /// Permits of the host limit held for connections beyond the first.
    var extraPermits = 0
    /// Permits asked for and not answered yet.
    var permitRequestPending = false
    /// The retry delays' jitter.
    var random: SplitMix64
    /// When bytes that arrive next look for mirrors to measure (`lookAtNewMirrors`); infinity
    /// while every mirror is measured.
    var nextMirrorLook = 0.0
    /// Where the readers of the running download read, by reader (`readerMoved`).
    var readers: [Int: ReaderWindow] = [:]

    /// A download of `settings.url` (and its mirrors); `seed` drives the retry delays' jitter.
    init(settings: Settings, seed: UInt64) {
        self.settings = settings
        mirrors = ([settings.url] + settings.mirrors).map { Mirror(url: $0) }
        random = SplitMix64(seed: seed)
    }

    // MARK: Starting, cancelling, looking

    /// The first request: `Range: bytes=0-`, or from the first missing byte of `resume` (what
    /// an earlier run left on disk) with `If-Range`, to the source its record names (a mirror,
    /// where the URL had failed: the one most likely to prove the file the same); when there is
    /// nothing to resume and a file is `existing`, only if the server says it changed since.
    mutating func start(resume: ResumePoint?, existing: FileStamp? = nil, at now: Double) -> [Action] {
        self.resume = resume
        self.existing = resume == nil ? existing : nil
        if let made = resume?.record.url {
            reference = mirrors.indices.first { sourceURL($0).redactingLogins == made } ?? 0
        }
        return [launchProbe(at: now)]
    }

    /// The caller cancels (or a disk failure stops the download): every transfer stops; the
    /// files stay for a resume unless `removingFiles`.
    mutating func cancel(removingFiles: Bool, at now: Double) -> [Action] {
        guard phase.stage != .done, phase.stage != .finishing || fatal != nil else { return [] }
        if removingFiles { removeFilesAtEnd = true }
        guard fatal == nil else { return [] }
        fatal = DownloadError(.cancelled, "the download of \(settings.url) was cancelled", url: settings.url)
        return cancelAll() + finishIfIdle()
    }

    /// Stops the download for `error` (a failed write or record): every transfer stops.
    mutating func fail(_ error: DownloadError) -> [Action] {
        guard phase.stage != .done else { return [] }
        if fatal == nil { fatal = error }
        return cancelAll() + finishIfIdle()
    }

    /// Whether running the download again resumes it from what is on disk now (a small file
    /// held in memory keeps no records, nor does a stream: they start over).
    var resumable: Bool { settings.inOrderPieceSize == nil && (opening.map(\.keepsRecords) ?? (resume != nil)) }

    /// A snapshot of the progress at `time`.
    mutating func progress(at time: Double) -> DownloadProgress {
        let (completed, total): (Int64, Int64?) =
            if let map {
                (map.completedBytes, map.size)
            } else {
                (stream?.written ?? 0, stream?.size)
            }
        return DownloadProgress(
            completedBytes: completed, totalBytes: total, bytesPerSecond: meter.rate(at: time),
            activeConnections: connections.values.filter { $0.dropped == nil }.count)
    }

    /// Whether the watchdog still has anything to look at.
    var isRunning: Bool { phase.stage != .finishing && phase.stage != .done }

    // MARK: Helpers for the other inputs

    /// Cancels every connection's transfer.
    func cancelAll() -> [Action] {
        connections.keys.sorted().map { .cancel(connection: $0) }
    }

    /// A new connection, numbered.
    mutating func addConnection(_ connection: Connection) -> Int {
        let number = nextConnection
        nextConnection += 1
        connections[number] = connection
        return number
    }

    /// The first request (again), to the source the probe is at (`reference`).
    mutating func launchProbe(at now: Double) -> Action {
        let start = resume?.firstMissing ?? 0
        let number = addConnection(Connection(mirror: reference, requestStart: start, started: now, lastData: now))
        let validator = resume.flatMap { $0.record.etag ?? $0.record.lastModified }
        return .request(
            Request(
                connection: number, url: sourceURL(reference), start: start, end: nil, ifRange: validator,
                unlessUnchanged: existing))
    }

    /// Takes the file opened for the first answer: the phase it starts, and the connections
    /// the piece map has work for.
    mutating func takeFile(
        _ opening: FileOpening, path: String, firstConnection: Int, effectiveURL: String,
        etag: String?, at now: Double
    ) -> [Action] {
        self.opening = opening
        self.path = path
        mirrors[reference].url = effectiveURL
        self.etag = etag
        dropSourcesThatFailedTheProbe()
        var actions: [Action] = []
        if opening.segmented, let size = opening.size {
            var map = PieceMap(size: size, minimumSplitSize: settings.minimumSplitSize, done: opening.written)
            let start = connections[firstConnection]?.requestStart ?? 0
            connections[firstConnection]?.assignment = map.assign(from: start, upTo: settings.inOrderPieceSize)?.id
            resumedBytes = opening.written.byteCount
            phase = .segmented(map)
        } else {
            phase = .streaming(Stream(size: opening.size))
        }
        resume = nil
        actions.append(
            .emit(
                .started(
                    DownloadInfo(
                        path: path, totalBytes: opening.size, segmented: map != nil,
                        effectiveURL: effectiveURL, resumedBytes: resumedBytes))))
        return actions + planConnections(at: now)
    }
}
