import Dispatch
import SlipstreamHTTP
import Synchronization

/// Runs one download: the first request finds out the size and whether ranges work (or, when
/// resuming, whether the remote file is still the same), then connections fetch the ranges the
/// piece map hands out, and a watchdog replaces stalled and straggling connections.
///
/// Transfer callbacks arrive on the engine's I/O thread, the writer's on its own thread, timers
/// on Dispatch, and `cancel`, `progress` and `result` from anywhere, so all state sits behind
/// one mutex. The network thread hands each slice to the `DiskWriter` (a copy into its bounded
/// pool, or a direct write when the disk is behind); the writer thread keeps the resume records
/// and, last, closes and renames. This file holds the state and the life cycle; the other
/// `DownloadJob+*` files hold the responses, the completions and the watchdog.
final class DownloadJob: Sendable {
    /// One connection written in order: bytes written, and the size when the server gave one.
    struct Stream {
        var written: Int64 = 0
        var size: Int64?
        var completed = false
    }

    /// Why the watchdog closed a connection.
    enum DropReason {
        case stalled
        case slow
        /// Its mirror was dropped.
        case mirror
    }

    /// One source of the file: the URL the download was started with (index 0, which defines
    /// the file), or a mirror from `DownloadConfiguration.mirrors`.
    struct Mirror {
        var url: String
        /// Bytes per second per connection, measured by the watchdog.
        var speed: Double?
        /// Failures without a byte received in between.
        var failures = 0
        var dropped = false
    }

    struct Connection {
        /// The index of its source in `State.mirrors`.
        var mirror = 0
        var assignment: Int?
        /// One past the last byte its request asked for; nil for the open-ended first request.
        var requestEnd: Int64?
        var transfer: HTTPTransfer?
        var started: Double
        var lastData: Double
        /// Bytes since the watchdog's last tick, and the speed it measured (bytes per second).
        var recentBytes: Int64 = 0
        var speed: Double?
        var slowTicks = 0
        var dropped: DropReason?
        /// Its client number in each of the job's rate limiters.
        var limiterClients: [Int] = []
        /// Paused by a rate limiter until it wakes the connection (not a stall).
        var throttled = false
        /// Woken before its transfer was attached: resume the transfer when it is.
        var wakeOnAttach = false
    }

    /// A download to resume: its record and what of it is on disk.
    struct ResumePoint {
        var record: ControlFile
        var store: ResumeStore
        var written: ByteRanges
        var firstMissing: Int64
    }

    struct Plan {
        var connection: Int
        var assignment: PieceMap.Assignment
    }

    struct State {
        /// Set when ranges work: many connections, each with an assignment of the map.
        /// Kept outside any enum so that it is mutated in place, never copied.
        var map: PieceMap?
        /// Set when ranges don't work (or the body can't be split). Neither set: probing.
        var stream: Stream?
        var resume: ResumePoint?
        /// Whether resume records of an earlier run may be on disk (to be removed at the end).
        var recordsOnDisk = true
        /// The resume answer said the remote file changed: probe afresh when this probe ends.
        var restartFresh = false
        var file: PartFile?
        /// The `.part` file made before the request (see `precreatePartFile`), until the first
        /// answer takes it (or the download ends without one, and it is removed).
        var precreated: PartFile?
        var writer: DiskWriter?
        var finalPath: String?
        /// The sources: the URL started with (after redirects, once it answered), then mirrors.
        var mirrors: [Mirror]
        /// The ETag of the first answer, which every mirror's answers must match where they give one.
        var etag: String?
        var connections: [Int: Connection] = [:]
        var nextConnection = 1
        /// Consecutive failures without progress in between.
        var failureStreak = 0
        /// The most bytes any attempt at a stream (no ranges) got.
        var longestStream: Int64 = 0
        /// Launches waiting for a retry delay.
        var scheduledRetries = 0
        /// Range requests answered with something else. After the first, no connection is
        /// added while one is running; after `maxRangeLies`, the download fails.
        var rangeLies = 0
        var lastError: DownloadError?
        /// Set when the download must stop: cancelled, a disk error, an unusable answer.
        var fatal: DownloadError?
        var removeFilesAtEnd = false
        var finishing = false
        var outcome: Result<DownloadResult, DownloadError>?
        var waiters: [CheckedContinuation<Result<DownloadResult, DownloadError>, Never>] = []
        var meter: SpeedMeter
        var lastProgressEvent = -1.0
        var bytesReceived: Int64 = 0
        var resumedBytes: Int64 = 0
        /// Speeds of connections that ended lately, so the last straggler has company to be compared with.
        var recentSpeeds: [(time: Double, speed: Double, mirror: Int)] = []
        /// Permits held for connections beyond the first (whose permit its starter holds).
        var extraPermits = 0

        /// Whether running the download again resumes it from what is on disk now (a small
        /// file's writer keeps no records: it starts over).
        var resumable: Bool { writer?.keepsRecords == true }
    }

    /// Wrong answers to range requests a download tolerates.
    static let maxRangeLies = 3
    /// Files up to this size (bytes) get no resume records at their start (see `openFile`).
    static let smallFileSize: Int64 = 4 << 20
    /// New files up to this size (bytes) are held in memory and written once at the end, with
    /// no writer thread or resume records (refetching so little after a crash costs less than
    /// a thread and the records).
    static let heldFileSize: Int64 = 256 << 10
    /// Seconds between the watchdog's looks at the connections.
    static let tickInterval = 0.5

    let engine: HTTPEngine
    let configuration: DownloadConfiguration
    let url: String
    let destination: DownloadDestination
    /// Where the download goes unless its first answer names another file.
    let expectedPath: String
    /// Where its events go; told only with `state`'s lock released (a queue's observer takes
    /// the queue's lock, and the queue reads progress under it).
    let events: EventChannel<DownloadEvent>
    /// The download's own rate limiter, then the shared one, where configured.
    let limiters: [RateLimiter]
    /// The host limit its connections count against, if any.
    let permits: ConnectionPermits?
    private let clock = ContinuousClock()
    private let startTime: ContinuousClock.Instant
    let state: Mutex<State>

    init(engine: HTTPEngine, configuration: DownloadConfiguration, url: String,
         destination: DownloadDestination, events: EventChannel<DownloadEvent>,
         permits: ConnectionPermits? = nil) {
        self.engine = engine
        self.permits = permits
        self.configuration = configuration
        self.url = url
        self.destination = destination
        expectedPath = destination.expectedPath(for: url)
        self.events = events
        limiters = [configuration.bytesPerSecondLimit.map { RateLimiter(bytesPerSecond: $0) },
                    configuration.sharedRateLimiter].compactMap { $0 }
        startTime = clock.now
        state = Mutex(State(mirrors: ([url] + configuration.mirrors).map { Mirror(url: $0) },
                            meter: SpeedMeter(start: 0)))
    }

    /// Seconds since the job started.
    var now: Double {
        let elapsed = startTime.duration(to: clock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    // MARK: Starting, cancelling, observing (any thread)

    /// Looks for a download to resume, else makes the fresh download's file (true when it did:
    /// the destination is usable).
    func prepare() -> Bool {
        var resume: ResumePoint?
        var recordsOnDisk = true
        var precreated: PartFile?
        let partPath = expectedPath + ".part"
        // A fresh file is made before the request only where its name is free (or may be replaced).
        let nameFree = configuration.overwrite || !FileSystem.exists(expectedPath)
        if nameFree, configuration.resume, !FileSystem.exists(partPath) {
            // Nothing to resume without a `.part` file, so records are not even looked for (any
            // left beside none describe nothing, and go when a `.part` is next named here). The
            // file starts unnamed (`PartFile.unnamed`): making it does not hold the folder, so
            // files are made side by side (on ext4, where making a file can take a millisecond,
            // that halves the time of a thousand small downloads), and a small file is never
            // named `.part` at all.
            precreated = PartFile.unnamed(for: partPath)
        }
        if precreated == nil {
            (resume, recordsOnDisk) = findResumePoint(at: expectedPath)
            if resume == nil, nameFree { precreated = precreatePartFile(at: partPath, recordsOnDisk: &recordsOnDisk) }
        }
        state.withLock { state in
            state.resume = resume
            state.recordsOnDisk = recordsOnDisk
            state.precreated = precreated
        }
        return precreated != nil
    }

    /// Sends the first request and starts the watchdog (after `prepare`).
    func begin() {
        launchProbe()
        WatchdogTicker.shared.watch(self)
    }

    func cancel(removingFiles: Bool) {
        let transfers: [HTTPTransfer] = state.withLock { state in
            guard state.outcome == nil, !state.finishing || state.fatal != nil else { return [] }
            if removingFiles { state.removeFilesAtEnd = true }
            guard state.fatal == nil else { return [] }
            state.fatal = DownloadError(.cancelled, "the download of \(url) was cancelled"
                + (removingFiles || !state.resumable ? ""
                    : state.file.map { "; run it again to resume from \($0.path)" } ?? ""))
            return state.connections.values.compactMap(\.transfer)
        }
        transfers.forEach { $0.cancel() }
        finishIfIdle()
    }

    func progress() -> DownloadProgress {
        state.withLock { Self.snapshot(&$0, at: now) }
    }

    func result() async throws(DownloadError) -> DownloadResult {
        let outcome = await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }

    // MARK: Launching

    /// The first request: `Range: bytes=0-`, or from the first missing byte with `If-Range`
    /// when resuming.
    func launchProbe() {
        let (connection, request, start) = state.withLock { state in
            let connection = state.nextConnection
            state.nextConnection += 1
            state.connections[connection] = Connection(started: now, lastData: now,
                                                       limiterClients: registerWithLimiters(connection))
            let start = state.resume?.firstMissing ?? 0
            var request = configuration.request(url, range: .init(start: start))
            if let record = state.resume?.record, let validator = record.etag ?? record.lastModified {
                request.headers.add(name: "If-Range", value: validator)
            }
            return (connection, request, start)
        }
        let sink = SegmentSink(job: self, connection: connection, requestStart: start, requestEnd: nil)
        attach(engine.start(request, sink: sink), to: connection)
    }

    func launch(_ plans: [Plan]) {
        for plan in plans {
            let requestURL = state.withLock { $0.mirrors[$0.connections[plan.connection]?.mirror ?? 0].url }
            let (start, end) = (plan.assignment.start, plan.assignment.end)
            let sink = SegmentSink(job: self, connection: plan.connection, requestStart: start, requestEnd: end)
            let transfer = engine.start(configuration.request(requestURL, range: .init(start: start, end: end - 1)), sink: sink)
            attach(transfer, to: plan.connection)
        }
    }

    private func attach(_ transfer: HTTPTransfer, to connection: Int) {
        let (stop, wake) = state.withLock { state in
            state.connections[connection]?.transfer = transfer
            return (state.fatal != nil, state.connections[connection]?.wakeOnAttach == true)
        }
        if stop { transfer.cancel() }
        if wake { transfer.resume() }
    }

    /// New connections for idle capacity, each with an assignment (lock held).
    func planConnections(state: inout State) -> [Plan] {
        guard state.map != nil, state.fatal == nil else { return [] }
        var plans: [Plan] = []
        let limit = state.rangeLies > 0 ? 1 : configuration.connections
        while state.connections.count < limit, takePermit(state: &state),
              let assignment = state.map!.assign() ?? endGameSplit(state: &state) {
            let connection = state.nextConnection
            state.nextConnection += 1
            state.connections[connection] = Connection(
                mirror: chooseMirror(state: state), assignment: assignment.id, requestEnd: assignment.end, started: now, lastData: now,
                limiterClients: registerWithLimiters(connection))
            plans.append(Plan(connection: connection, assignment: assignment))
        }
        // A permit taken for work there was not: given back as if never taken.
        releaseSparePermits(state: &state, wakingWaiters: false)
        return plans
    }

    /// Makes sure a permit covers one more connection (lock held): the first is covered by the
    /// download's own permit, each further one takes a permit of the host limit; when none is
    /// free, the download plans again at the next release.
    private func takePermit(state: inout State) -> Bool {
        guard let permits, state.connections.count >= 1 + state.extraPermits else { return true }
        guard permits.limiter.acquireExtra(permits.host, orWait: { [weak self] in self?.permitFreed() })
        else { return false }
        state.extraPermits += 1
        return true
    }

    /// Gives back the permits no connection uses (lock held), waking the downloads that wait
    /// for one unless they were taken just now.
    func releaseSparePermits(state: inout State, wakingWaiters: Bool = true) {
        guard let permits else { return }
        while state.extraPermits > max(0, state.connections.count - 1) {
            state.extraPermits -= 1
            permits.limiter.release(permits.host, wakingWaiters: wakingWaiters)
        }
    }

    /// A permit of the host limit came free: more connections, if there is work for them.
    private func permitFreed() {
        let plans = state.withLock { planConnections(state: &$0) }
        launch(plans)
    }

    /// The end game (lock held): nothing is free and no remainder is worth a normal split, but a
    /// connection crawls at under a third of the others' median speed; an idle connection takes
    /// the back half of its remainder, down to 64 KiB, so the end comes at the fast ones' speed.
    private func endGameSplit(state: inout State) -> PieceMap.Assignment? {
        guard configuration.dropSlowConnections else { return nil }
        let measured = state.connections.compactMap { number, connection in
            connection.speed.map { (number: number, speed: $0, assignment: connection.assignment) }
        }
        let speeds = (measured.map(\.speed) + state.recentSpeeds.map(\.speed)).sorted()
        guard speeds.count >= 2, let slowest = measured.min(by: { $0.speed < $1.speed }),
              let id = slowest.assignment, slowest.speed * 3 < speeds[speeds.count / 2]
        else { return nil }
        return state.map!.split(id, minimumPart: 64 << 10)
    }

    /// Runs `retry` after the retry policy's delay for the current failure streak (lock held);
    /// the caller tells the events after unlocking.
    func scheduleRetry(state: inout State, retryAfter: Double?, _ retry: @escaping @Sendable () -> Void) -> Double {
        let delay = configuration.retryPolicy.delay(attempt: state.failureStreak, retryAfter: retryAfter,
                                                    jitter: Double.random(in: 0...1))
        state.scheduledRetries += 1
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            self.state.withLock { $0.scheduledRetries -= 1 }
            retry()
            finishIfIdle()
        }
        return delay
    }

    /// Stops the download for `error` (any thread).
    func stop(with error: DownloadError) {
        let transfers: [HTTPTransfer] = state.withLock { state in
            if state.fatal == nil { state.fatal = error }
            return state.connections.values.compactMap(\.transfer)
        }
        transfers.forEach { $0.cancel() }
    }

    static func snapshot(_ state: inout State, at time: Double) -> DownloadProgress {
        let (completed, total): (Int64, Int64?) = if let map = state.map {
            (map.completedBytes, map.size)
        } else {
            (state.stream?.written ?? 0, state.stream?.size)
        }
        return DownloadProgress(completedBytes: completed, totalBytes: total,
                                bytesPerSecond: state.meter.rate(at: time),
                                activeConnections: state.connections.values.filter { $0.transfer != nil }.count)
    }
}

extension Result {
    var failureError: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
