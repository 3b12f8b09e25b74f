import Dispatch
import Glibc
import SlipstreamHTTP
import Synchronization

/// Runs one download: the thin shell around its `DownloadStateMachine`. Every input (an
/// answer, a body slice, a transfer's end, the watchdog's tick, a permit, a rate limiter's or
/// the writer's news, a cancel) goes through the `MachineShell`: it takes the lock, feeds the
/// machine, releases the lock, and the job carries out the actions it returned: start or stop transfers, open and write files (through
/// `DownloadFiles` and its writer thread), tell events, finish.
///
/// Transfer callbacks arrive on the engine's I/O thread, the writer's on its own thread, timers
/// on Dispatch, and `cancel`, `progress` and `result` from anywhere: the machine and what the
/// shell keeps beside it (the transfers, the files) sit behind one mutex, held only while the
/// machine decides. No file is written on the engine's thread: when the writer's slots are
/// full, the transfer pauses until the writer has room.
final class DownloadJob: Sendable {
    typealias Action = DownloadStateMachine.Action

    /// What the shell keeps behind its lock.
    struct State: Sendable {
        var machine: DownloadStateMachine
        var files: DownloadFiles
        var transfers: [Int: HTTPTransfer] = [:]
        /// Commands for transfers not attached yet (their `engine.start` is still returning).
        var early: [Int: EarlyCommand] = [:]
        /// Each connection's client numbers in the job's rate limiters.
        var limiterClients: [Int: [Int]] = [:]
        var outcome: Result<DownloadResult, DownloadError>?
        var waiters: [CheckedContinuation<Result<DownloadResult, DownloadError>, Never>] = []
    }

    enum EarlyCommand: Sendable {
        case resume, cancel
    }

    let engine: HTTPEngine
    let configuration: DownloadConfiguration
    let url: String
    /// Where its events go; told only with the lock released (a queue's observer takes the
    /// queue's lock, and the queue reads progress under it).
    let events: EventChannel<DownloadEvent>
    /// The download's own rate limiter (without a limit unless configured: its limit can be
    /// set while it runs), then the shared one, where configured.
    let limiters: [RateLimiter]
    /// The host limit its connections count against, if any.
    let permits: ConnectionPermits?
    /// Where the login may go: the servers of the URL and the mirrors it was given (not those
    /// a redirect leads to, whose URLs later connections use), unless the configuration says.
    let loginOrigins: [URLOrigin]
    private let startTime = MonotonicTime.now()
    let state: MachineShell<State>
    /// What the download's readers share (`Download.reader(at:bytesPerSecond:)`).
    let reading = DownloadReading()

    init(
        engine: HTTPEngine, configuration: DownloadConfiguration, url: String,
        destination: DownloadDestination, events: EventChannel<DownloadEvent>, permits: ConnectionPermits? = nil
    ) {
        self.engine = engine
        self.permits = permits
        self.configuration = configuration
        self.url = url
        self.events = events
        loginOrigins = configuration.loginOrigins ?? ([url] + configuration.mirrors).compactMap(URLOrigin.init)
        limiters = [RateLimiter(bytesPerSecond: configuration.bytesPerSecondLimit)] + [configuration.sharedRateLimiter].compactMap { $0 }
        let files = DownloadFiles(configuration: configuration, url: url, destination: destination)
        var settings = DownloadStateMachine.Settings(url: url)
        settings.mirrors = configuration.mirrors
        settings.connections = configuration.connections
        settings.minimumSplitSize = configuration.minimumSplitSize
        settings.stallTimeout = configuration.stallTimeout.seconds
        settings.dropSlowConnections = configuration.dropSlowConnections
        settings.retryPolicy = configuration.retryPolicy
        settings.limitsHosts = permits != nil
        settings.expectedPath = files.expectedPath
        settings.maxFileSize = configuration.maxFileSize
        if case .stream = destination { settings.inOrderPieceSize = configuration.streamPieceSize }
        let machine = DownloadStateMachine(settings: settings, seed: UInt64.random(in: 0...UInt64.max))
        state = MachineShell(State(machine: machine, files: files))
        reading.onMove { [weak self] reader, window in self?.feed { $0.readerMoved(reader, to: window, at: $1) } }
    }

    /// Seconds since the job started.
    var now: Double { Double(MonotonicTime.now() - startTime) / 1e9 }

    // MARK: Feeding the machine

    /// Feeds the machine under the lock, then carries out its actions.
    func feed(_ input: (inout DownloadStateMachine, Double) -> [Action]) {
        state.feed({ input(&$0.machine, now) }, perform: carryOut)
    }

    /// Carries out actions decided under the lock (with an answer to give back as well), in
    /// order, with the lock released.
    func perform(_ actions: [Action]) {
        for action in actions { carryOut(action) }
    }

    /// Carries out one action, with the lock released.
    private func carryOut(_ action: Action) {
        switch action {
        case .request(let request): launch(request)
        case .cancel(let connection): command(.cancel, connection)
        case .resume(let connection): command(.resume, connection)
        case .requestPermits(let count): requestPermits(count)
        case .releasePermits(let count, let waking):
            for _ in 0..<count { permits?.limiter.release(permits!.host, wakingWaiters: waking) }
        case .closeFile: state.withLock { $0.files.closeForRestart() }
        case .scheduleRetry(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in feed { $0.retryDue(at: $1) } }
        case .emit(let event): emit(event)
        case .finishWriter(let keepRecord): finishWriter(keepRecord: keepRecord)
        case .complete(let path): complete(to: path)
        case .discard(let removingFiles): state.withLock { $0.files.discard(removingFiles: removingFiles) }
        case .finish(let outcome): finish(outcome)
        }
    }

    // MARK: Starting, cancelling, observing (any thread)

    /// Looks for a download to resume, or makes the fresh download's file, then sends the first
    /// request and starts the watchdog. Looks at the disk: never called on the caller's thread.
    func begin() {
        var files = state.withLock { $0.files }
        let prepared: Result<(point: DownloadStateMachine.ResumePoint?, notices: [String]), DownloadError>
        do throws(DownloadError) { prepared = .success(try files.prepare()) } catch { prepared = .failure(error) }
        for notice in (try? prepared.get().notices) ?? [] { emit(.notice(notice)) }
        let actions: [Action] = state.withLock { state in
            state.files = files
            // Cancelled while preparing: what was found or made goes as the cancel says.
            guard state.machine.isRunning, state.machine.fatal == nil else {
                state.files.discard(removingFiles: state.machine.removeFilesAtEnd)
                return []
            }
            switch prepared {
            case .success(let found): return state.machine.start(resume: found.point, existing: files.existing, at: now)
            case .failure(let error): return state.machine.fail(error)
            }
        }
        perform(actions)
        WatchdogTicker.shared.watch(self)
    }

    func cancel(removingFiles: Bool) {
        feed { $0.cancel(removingFiles: removingFiles, at: $1) }
    }

    /// Stops the download for `error` (a failed write or record; any thread).
    func stop(with error: DownloadError) {
        feed { machine, _ in machine.fail(error) }
    }

    func progress() -> DownloadProgress {
        state.withLock { $0.machine.progress(at: now) }
    }

    /// Changes the download's own limit at once (nil lifts it).
    func setBytesPerSecondLimit(_ limit: Int64?) {
        limiters[0].setBytesPerSecond(limit)
    }

    func details() -> DownloadDetails {
        state.withLock { $0.machine.details(pieceLength: DownloadDetails.defaultPieceLength) }
    }

    /// The outcome, once the download ended. Cancelling the awaiting task cancels the download
    /// (its files kept, as `cancel()`).
    func result() async throws(DownloadError) -> DownloadResult {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.outcome == nil { state.waiters.append(continuation) }
                    return state.outcome
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel(removingFiles: false)
        }
        return try outcome.get()
    }

    /// One look of the watchdog (see `DownloadStateMachine.tick`); false once the download has ended.
    func tick() -> Bool {
        let (actions, running) = state.withLock { ($0.machine.tick(at: now), $0.machine.isRunning) }
        perform(actions)
        return running
    }
}
