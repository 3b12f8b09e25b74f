import Dispatch
import SlipstreamHTTP
import Synchronization

/// Runs many downloads: at most `maxConcurrentDownloads` at once, in priority order, with the
/// connections to each host limited across all of them (see `HostConnectionLimiter`).
/// Downloads can be added, paused, resumed, cancelled and moved at any time, and the queue's
/// state can be kept in a session file that a later run carries on from.
///
/// ```swift
/// let queue = DownloadQueue(configuration: .init())
/// let id = try queue.add(.init(url: "https://example.test/a.iso", destination: .folder(".")))
/// try queue.add(.init(url: "https://example.test/b.iso", destination: .folder(".")))
/// for await event in queue.events(for: id) { ... }   // ends once that download ends
/// for outcome in try await queue.waitUntilIdle() { ... }  // once every download has ended
/// ```
///
/// `queue.events()` tells every download's events and never ends by itself: read it in a task
/// of its own and cancel that task when done. A reader that starts late first gets where each
/// download is (see `events(where:)`); the downloads that ended stay in `outcomes`.
public final class DownloadQueue: Sendable {
    /// Identifies a download of the queue.
    public struct ID: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The number, from 1 in the order of adding.
        public let rawValue: Int

        /// The number.
        public var description: String { "#\(rawValue)" }

        /// Earlier added first.
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How the queue runs. Every setting has a documented default.
    public struct Configuration: Sendable {
        /// Downloads running at once at most (at least 1). Default 5. Changed while the queue
        /// runs with `setMaxConcurrentDownloads(_:)`.
        public var maxConcurrentDownloads = 5
        /// The most bytes per second all the downloads of the queue receive together; nil
        /// (default) for no limit. Changed while the queue runs with
        /// `setBytesPerSecondLimit(_:)`. Held by the queue's `rateLimiter`: the one given in
        /// `download.sharedRateLimiter`, if any (set to this limit when one is given here), else
        /// one of its own. A limit of each download is `download.bytesPerSecondLimit`, or the
        /// `Request`'s.
        public var bytesPerSecondLimit: Int64?
        /// Connections to one host at once at most, over all downloads (at least 1). Default 16.
        public var connectionsPerHost = 16
        /// The settings of each download (its checksum and mirrors come from its `Request`).
        public var download = DownloadConfiguration()
        /// A session file kept up to date after every change (replaced atomically), listing
        /// every download not yet finished; nil for none. Default nil.
        public var sessionPath: String?
        /// The most outcomes of ended downloads `outcomes` keeps (and `events()` replays), the
        /// oldest forgotten first, so that a queue that runs for long stays small. Default
        /// 1,000 (as aria2's `max-download-result`); 0 keeps none.
        public var keptOutcomes = 1000

        /// The defaults.
        public init() {}
    }

    /// Where a download of the queue is.
    public enum Phase: Sendable, Equatable {
        /// Waiting for its turn.
        case queued
        /// Transferring (or stopping, after `pause`).
        case running
        /// Paused, keeping its `.part` file: waits for `resume`.
        case paused
    }

    /// A snapshot of one download of the queue.
    public struct Status: Sendable, Equatable {
        /// Its id.
        public var id: ID
        /// What it downloads.
        public var request: Request
        /// Where it is.
        public var phase: Phase
        /// Its progress, once started; for one paused (or waiting again) after it ran, where
        /// it stopped (no speed, no connections); for one waiting that an earlier run left a
        /// `.part` file and resume record of (say, restored from a session), what they hold.
        public var progress: DownloadProgress?
        /// The file it writes (final name; `.part` is added until the end), once known.
        public var path: String?
    }

    /// Why a running download is being stopped.
    enum StopIntent: Sendable {
        case pause, cancel, cancelAndRemoveFiles
        /// Stopped by `stopAll`: back to queued.
        case requeue
        /// Stopped by `update(_:restarting:_:)`: back to queued, with its new request.
        case restart

        /// Whether the download waits again once stopped (rather than leaving the queue).
        var keepsIt: Bool { self == .pause || self == .requeue || self == .restart }
    }

    struct Record: Sendable {
        var request: Request
        var host: String
        var download: Download?
        var path: String?
        var stop: StopIntent?
        /// Where it was when it last stopped (paused, or back to waiting), not moving.
        var stopped: (progress: DownloadProgress, details: DownloadDetails)?
        /// A change made while it runs (`update(_:restarting:_:)`): its request once stopped.
        var pendingRequest: Request?
        var subscribers: [EventChannel<DownloadQueueEvent>] = []
    }

    struct State: Sendable {
        var scheduler: QueueScheduler
        var records: [ID: Record] = [:]
        var nextID = 1
        /// Readers of every download's events, each with the events it takes.
        var subscribers: [(channel: EventChannel<DownloadQueueEvent>, takes: @Sendable (DownloadQueueEvent) -> Bool)] = []
        /// Handlers of every event, called on the thread that tells it (`observe`).
        var observers: [@Sendable (DownloadQueueEvent) -> Void] = []
        /// What was told of each download, for readers that start late; the outcomes.
        var history: QueueHistory
        /// The files the downloads write: a second download to one is refused.
        var targets = QueueTargets()
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Hosts told to the limiter as having starts waiting.
        var reservedHosts: Set<String> = []
        var sessionDirty = false
        var sessionSaving = false
        /// Set by `stopAll`: nothing starts any more.
        var stopped = false
        /// Downloads that have ended (out of the scheduler's count) whose last event is still
        /// being told: the queue is not idle before its readers have every end.
        var endingsBeingTold = 0

        /// Nothing runs, nothing waits to run (or nothing may start any more), and every
        /// download's end has been told.
        var isIdle: Bool {
            endingsBeingTold == 0 && (stopped ? scheduler.activeCount == 0 : scheduler.isIdle)
        }
    }

    /// The settings.
    public let configuration: Configuration
    /// The connection limit of every host, shared by the downloads of this queue.
    public let limiter: HostConnectionLimiter
    /// The rate limit of all the downloads of this queue together (see
    /// `Configuration.bytesPerSecondLimit`).
    public let rateLimiter: RateLimiter
    /// The engine, made (and libcurl loaded) when the first download starts: a queue that
    /// waits, as an idle daemon's, holds neither.
    var engine: HTTPEngine { makeEngine() }
    private let makeEngine: @Sendable () -> HTTPEngine
    let state: Mutex<State>
    /// Writes the session file, one write at a time.
    let sessionQueue = DispatchQueue(label: "slipstream.session")
    /// Reads the resume records of downloads added (`lookForKeptBytes`), one at a time.
    let keptBytesQueue = DispatchQueue(label: "slipstream.queue.kept-bytes")

    /// A queue on `engine` (default: the shared one, first touched when a download starts).
    public init(engine: @autoclosure @escaping @Sendable () -> HTTPEngine = .shared, configuration: Configuration = Configuration()) {
        makeEngine = engine
        self.configuration = configuration
        limiter = HostConnectionLimiter(connectionsPerHost: configuration.connectionsPerHost)
        if let given = configuration.download.sharedRateLimiter {
            rateLimiter = given
            if let limit = configuration.bytesPerSecondLimit { given.setBytesPerSecond(limit) }
        } else {
            rateLimiter = RateLimiter(bytesPerSecond: configuration.bytesPerSecondLimit)
        }
        state = Mutex(
            State(
                scheduler: QueueScheduler(maxConcurrentDownloads: configuration.maxConcurrentDownloads),
                history: QueueHistory(keptOutcomes: configuration.keptOutcomes)))
    }

    // MARK: Adding and controlling downloads

    /// Adds a download at the end of the queue (paused, if `paused`), and starts it when its
    /// turn comes. Throws at once `.invalidURL` for a URL that is not http, https, ftp, ftps or
    /// sftp, or has no host, and `.output` for a file another download of the queue (one not
    /// ended, paused ones included) writes: the same `.file` path, the final path of one whose
    /// server answered, or the same URL into the same folder (see `QueueTargets`).
    @discardableResult
    public func add(_ request: Request, paused: Bool = false) throws(DownloadError) -> ID {
        for url in [request.url] + request.mirrors {
            if let refusal = HTTPURL.refusal(of: url) {
                throw DownloadError(.invalidURL, "\(url): \(refusal)", url: url)
            }
        }
        let added: Result<ID, DownloadError> = state.withLock { state in
            if let owner = state.targets.owner(of: request) {
                return .failure(Self.duplicateError(request, owner: owner))
            }
            let id = ID(rawValue: state.nextID)
            state.nextID += 1
            let host = HostConnectionLimiter.host(of: request.url)
            state.records[id] = Record(request: request, host: host)
            state.scheduler.add(id, host: host, paused: paused)
            state.targets.claim(request, for: id)
            return .success(id)
        }
        let id = try added.get()
        emit(paused ? .paused(id) : .queued(id))
        lookForKeptBytes(of: id, request: request)
        changed()
        return id
    }

    /// Pauses a download: a queued one stays in the queue without starting; a running one
    /// stops its transfers (keeping its `.part` file and resume records) and frees its
    /// connections. Nothing happens for a download already paused or gone.
    public func pause(_ id: ID) {
        stop(id, .pause)
    }

    /// Puts a paused download back in the queue, in its place; it resumes from its `.part`
    /// file when its turn comes. One still stopping after `pause` goes back to waiting (not to
    /// paused) once its transfers have stopped.
    public func resume(_ id: ID) {
        let resumed = state.withLock { state in
            // One still stopping after `pause` goes back to waiting once stopped, not to paused.
            if state.scheduler.phase(of: id) == .pausing, state.records[id]?.stop == .pause {
                state.records[id]?.stop = .requeue
                return false
            }
            guard state.scheduler.phase(of: id) == .paused else { return false }
            state.scheduler.set(id, to: .queued)
            return true
        }
        guard resumed else { return }
        emit(.queued(id))
        changed()
    }

    /// Cancels a download and takes it out of the queue (it fails with `.cancelled`); what a
    /// resume needs stays (its `.part` file and resume record, as after `Download.cancel()`),
    /// so that adding it again resumes it.
    public func cancel(_ id: ID) {
        stop(id, .cancel)
    }

    /// Like `cancel`, but leaves nothing: its `.part` file and resume records go too.
    public func cancelAndRemoveFiles(_ id: ID) {
        stop(id, .cancelAndRemoveFiles)
    }

    /// Moves a download to `position` in the queue's order (0: next to start), which decides
    /// which queued downloads start first. Running downloads keep running.
    public func move(_ id: ID, to position: Int) {
        state.withLock { $0.scheduler.move(id, to: position) }
        changed()
    }

    /// The downloads still in the queue (not finished, failed or cancelled), in priority order;
    /// those that ended are in `outcomes`.
    public var downloads: [Status] { downloads(in: [.queued, .running, .paused]) }

    /// The downloads still in the queue that are in one of `phases`, in priority order: as
    /// `downloads` filtered, without making the statuses of the others (a daemon's UI asks for
    /// the few running ones among thousands waiting, once a second).
    public func downloads(in phases: Set<Phase>) -> [Status] {
        let items = state.withLock { state in
            state.scheduler.items.compactMap { item -> (ID, Phase, Request, DownloadProgress?, Download?, String?)? in
                let phase = Self.phase(of: item.phase)
                guard phases.contains(phase), let record = state.records[item.id] else { return nil }
                return (item.id, phase, record.request, record.stopped?.progress, record.download, record.path)
            }
        }
        // A running download's progress takes its own lock: read outside the queue's.
        return items.map { id, phase, request, stopped, download, path in
            Status(id: id, request: request, phase: phase, progress: download?.progress ?? stopped, path: path)
        }
    }

    /// The status of one download still in the queue; nil for one that ended or is unknown.
    public func status(of id: ID) -> Status? {
        let found = state.withLock { state -> (Phase, Request, DownloadProgress?, Download?, String?)? in
            guard let phase = state.scheduler.phase(of: id), let record = state.records[id] else { return nil }
            return (Self.phase(of: phase), record.request, record.stopped?.progress, record.download, record.path)
        }
        guard let (phase, request, stopped, download, path) = found else { return nil }
        return Status(id: id, request: request, phase: phase, progress: download?.progress ?? stopped, path: path)
    }

    /// The public phase of a scheduler's phase.
    private static func phase(of phase: QueueScheduler.Phase) -> Phase {
        switch phase {
        case .queued: .queued
        case .running, .pausing: .running
        case .paused: .paused
        }
    }

    /// What a running download is doing now, piece by piece and connection by connection (see
    /// `DownloadDetails`); for one paused (or waiting again) after it ran in this queue, its
    /// pieces when it stopped, without connections, and for one waiting that an earlier run
    /// left a `.part` file and resume record of, what they hold; nil for one that has not run
    /// (or is still starting), has ended, or is unknown.
    public func details(of id: ID) -> DownloadDetails? {
        let (download, stopped) = state.withLock { ($0.records[id]?.download, $0.records[id]?.stopped?.details) }
        return download?.details ?? stopped
    }

    /// Every event of every download, or those `isIncluded` takes (called on the thread that
    /// tells each event: keep it quick). A reader that needs only some events (say the ends) is
    /// woken only for those.
    ///
    /// The reader starts from where each download is, then gets every event from then on: in
    /// the order the downloads were added, `.finished` or `.failed` for each of `outcomes`,
    /// `.queued` or `.paused` for one waiting, and `.started` and its latest `.progress` for
    /// one running (a download's own `events` replay its whole history the same way, older
    /// progress left out).
    public func events(where isIncluded: @escaping @Sendable (DownloadQueueEvent) -> Bool = { _ in true })
        -> DownloadQueueEvents
    {
        // Bounded by the queue's own downloads (a few lifecycle events each), not by a count.
        let channel = EventChannel<DownloadQueueEvent>(limit: .max, replay: false)
        state.withLock { state in
            // Under the lock that tells events: no event is missed or told twice.
            for event in state.history.replay() where isIncluded(event) { channel.yield(event) }
            state.subscribers.append((channel, isIncluded))
        }
        return DownloadQueueEvents(channel)
    }

    /// Calls `handler` with every event from now on (no replay), on the thread that tells it,
    /// outside the queue's lock, in each download's order: for a program that must see every
    /// start and end at once without a task of its own (a daemon's notifications, which a busy
    /// Swift concurrency pool must not hold back). Keep it quick: hand the event on.
    public func observe(_ handler: @escaping @Sendable (DownloadQueueEvent) -> Void) {
        state.withLock { $0.observers.append(handler) }
    }

    /// The events of one download, starting from where it is (as `events(where:)` does) and
    /// ending after it finishes or fails: at once, after its end, when it has ended (and its
    /// outcome is kept), or with nothing when the queue does not know it.
    public func events(for id: ID) -> DownloadQueueEvents {
        // Bounded by the queue's own downloads (a few lifecycle events each), not by a count.
        let channel = EventChannel<DownloadQueueEvent>(limit: .max, replay: false)
        let known = state.withLock { state in
            state.history.replay(of: id).forEach(channel.yield)
            state.records[id]?.subscribers.append(channel)
            return state.records[id] != nil
        }
        if !known { channel.finish() }
        return DownloadQueueEvents(channel)
    }

    /// Returns once nothing runs or waits to run (paused downloads may remain), or after
    /// `stopAll`, once nothing runs, with the `outcomes` kept then: each ended download's
    /// result or error, oldest first. Cancelling the awaiting task stops the queue as
    /// `stopAll` does (every running download keeps its `.part` file, to be resumed), waits
    /// for that, and throws `.cancelled`.
    @discardableResult
    public func waitUntilIdle() async throws(DownloadError) -> [Outcome] {
        await withTaskCancellationHandler {
            await idle()
        } onCancel: {
            stopRunning()
        }
        if Task.isCancelled {
            throw DownloadError(.cancelled, "waiting for the queue was cancelled; its downloads were stopped")
        }
        return outcomes
    }

    /// Stops the queue, e.g. before the program exits: nothing starts any more, and every
    /// running download stops, keeping its `.part` file and resume records, and goes back to
    /// waiting (so that the session lists it as queued, to be resumed by a later run). Returns
    /// once every transfer has stopped.
    public func stopAll() async {
        stopRunning()
        await idle()
    }

    /// Nothing starts any more; every running download stops and goes back to waiting.
    private func stopRunning() {
        let running = state.withLock { state in
            state.stopped = true
            return state.scheduler.items.filter { $0.phase == .running || $0.phase == .pausing }.map(\.id)
        }
        running.forEach { stop($0, .requeue) }
    }

    /// Returns once the queue is idle.
    private func idle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if !state.isIdle { state.idleWaiters.append(continuation) }
                return state.isIdle
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: Internals

    /// Tells `event` to the queue's readers and to the download's, and keeps it in the
    /// history; after `.finished` or `.failed` the download is out of the queue, its outcome
    /// kept, its file free for another, and its own readers' events end.
    func emit(_ event: DownloadQueueEvent) {
        let (channels, own, ends, observers) = state.withLock { state in
            let ends = event.isEnd
            if case .started(let id, let info) = event {
                state.records[id]?.path = info.path
                state.targets.claim(path: info.path, for: id)
            }
            let record = ends ? state.records.removeValue(forKey: event.id) : state.records[event.id]
            if let record { state.history.tell(event, request: record.request, last: record.stopped) }
            if ends { state.targets.release(event.id) }
            return (
                state.subscribers.filter { $0.takes(event) }.map(\.channel), record?.subscribers ?? [], ends, state.observers
            )
        }
        observers.forEach { $0(event) }
        channels.forEach { $0.yield(event) }
        own.forEach { ends ? $0.finish(after: event) : $0.yield(event) }
    }

    /// The refusal of `request`, whose file download `owner` writes.
    static func duplicateError(_ request: Request, owner: ID) -> DownloadError {
        switch request.destination {
        case .folder(let folder):
            DownloadError(
                .output, "\(request.url) is already being downloaded into \(folder) by download \(owner) of this queue",
                url: request.url, path: folder)
        default:
            DownloadError(
                .output,
                "\(request.destination.expectedPath(for: request.url)) is already written by download "
                    + "\(owner) of this queue", url: request.url, path: request.destination.expectedPath(for: request.url))
        }
    }

    /// After any change: start what can start, keep the session file, wake idle waiters.
    func changed() {
        schedule()
        requestSessionSave()
        let waiters = state.withLock { state in
            guard state.isIdle else { return [CheckedContinuation<Void, Never>]() }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
