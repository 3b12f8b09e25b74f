#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SlipstreamHTTP

extension DownloadQueue {
    /// Starts the downloads the scheduler picks, each holding the permit of its host's first
    /// connection; hosts with downloads waiting for a permit hold back further connections of
    /// running downloads, and call back here at the next release.
    func schedule() {
        let starts: [(ID, Request, String)] = state.withLock { state in
            guard !state.stopped else { return [] }
            let decision = state.scheduler.decide(freePermits: limiter.freePermits)
            var starts: [(ID, Request, String)] = []
            var waiting = decision.waitingHosts
            for id in decision.start {
                guard let record = state.records[id] else { continue }
                // A running download may have taken the permit since it was counted.
                guard limiter.acquireStart(record.host) else {
                    state.scheduler.set(id, to: .queued)
                    waiting[record.host, default: 0] += 1
                    continue
                }
                starts.append((id, record.request, record.host))
            }
            for host in state.reservedHosts.union(waiting.keys) {
                limiter.reserveStarts(host, count: waiting[host] ?? 0) { [weak self] in self?.changed() }
            }
            state.reservedHosts = Set(waiting.keys)
            return starts
        }
        // Starting looks at the disk (records, the new .part file): never on the Swift
        // concurrency pool, where `add` and friends may be called from.
        let onPool = withUnsafeCurrentTask { $0 != nil }
        for (id, request, host) in starts {
            if onPool {
                DispatchQueue.global().async { self.start(id, request: request, host: host) }
            } else {
                start(id, request: request, host: host)
            }
        }
    }

    private func start(_ id: ID, request: Request, host: String) {
        var configuration = request.configuration(from: configuration.download)
        configuration.sharedRateLimiter = rateLimiter
        let download: Download
        do {
            // Its events come straight here, on the threads that tell them (no task per download).
            download = try Downloader(engine: engine, configuration: configuration)
                .start(
                    request.url, to: request.destination, permits: ConnectionPermits(limiter: limiter, host: host),
                    observer: { [weak self] event in self?.relay(event, of: id, host: host) })
        } catch {
            ended(id, host: host, outcome: .failure(error))
            return
        }
        let (stop, limit) = state.withLock { state in
            state.records[id]?.download = download
            return (state.records[id]?.stop, state.records[id]?.request.bytesPerSecondLimit)
        }
        // Its limit changed while it was starting.
        if limit != request.bytesPerSecondLimit {
            download.setBytesPerSecondLimit(limit ?? self.configuration.download.bytesPerSecondLimit)
        }
        switch stop {
        case .cancelAndRemoveFiles?: download.cancelAndRemoveFiles()
        case .some: download.cancel()
        case nil: break
        }
    }

    /// One event of a running download, as the queue tells it.
    private func relay(_ event: DownloadEvent, of id: ID, host: String) {
        switch event {
        case .started(let info):
            emit(.started(id, info))
            requestSessionSave()
        case .progress(let progress): emit(.progress(id, progress))
        case .retrying(let error, let attempt, let delay): emit(.retrying(id, error: error, attempt: attempt, delay: delay))
        case .notice(let text): emit(.notice(id, text))
        case .finished(let result): ended(id, host: host, outcome: .success(result))
        case .failed(let error): ended(id, host: host, outcome: .failure(error))
        }
    }

    /// A started download ended: its permit goes back, and it is paused or out of the queue.
    /// Its end is told before the queue can count as idle: two downloads ending at once on
    /// two threads, the second must not wake `waitUntilIdle` before the first's event is out.
    private func ended(_ id: ID, host: String, outcome: Result<DownloadResult, DownloadError>) {
        limiter.release(host)
        // Where it stopped, for a pause (its transfers have ended: no connections).
        let (download, intent) = state.withLock { ($0.records[id]?.download, $0.records[id]?.stop) }
        var stopped: (progress: DownloadProgress, details: DownloadDetails)?
        if let download, intent?.keepsIt == true {
            var progress = download.progress
            progress.bytesPerSecond = 0
            progress.activeConnections = 0
            stopped = (progress, download.details)
        }
        let stop = state.withLock { state in
            state.endingsBeingTold += 1
            let stop = outcome.failureError?.code == .cancelled ? state.records[id]?.stop : nil
            switch stop {
            case .pause?, .requeue?, .restart?:
                state.scheduler.set(id, to: stop == .pause ? .paused : .queued)
                state.records[id]?.download = nil
                state.records[id]?.stop = nil
                if let stopped { state.records[id]?.stopped = stopped }
                if let request = state.records[id]?.pendingRequest {
                    let host = HostConnectionLimiter.host(of: request.url)
                    state.records[id]?.host = host
                    state.scheduler.setHost(id, to: host)
                    state.records[id]?.request = request
                    state.records[id]?.pendingRequest = nil
                }
            default:
                state.scheduler.remove(id)
            }
            return stop
        }
        switch outcome {
        case _ where stop == .pause: emit(.paused(id))
        case _ where stop == .requeue || stop == .restart: emit(.queued(id))
        case .success(let result): emit(.finished(id, result))
        case .failure(let error): emit(.failed(id, error))
        }
        state.withLock { $0.endingsBeingTold -= 1 }
        changed()
    }

    /// The `.part` file a download that is not running left to resume from, if it left one
    /// with its resume record (a paused one, or one restored from a session), as a cancelled
    /// running download's error names it.
    static func resumableFile(of request: Request, path: String?) -> String? {
        if case .stream = request.destination { return nil }
        let partPath = (path ?? request.destination.expectedPath(for: request.url)) + ".part"
        let store = ResumeStore(partPath: partPath)
        guard access(partPath, F_OK) == 0, access(store.durablePath, F_OK) == 0 || access(store.livePath, F_OK) == 0
        else { return nil }
        return partPath
    }

    /// Pauses or cancels a download: at once when it is not running, else by stopping its
    /// transfers (the rest happens when it has ended).
    func stop(_ id: ID, _ intent: StopIntent) {
        enum Action {
            case none, pausedAtOnce, cancelledAtOnce(Request, String?), stopRunning(Download?)
        }
        let action: Action = state.withLock { state in
            guard let phase = state.scheduler.phase(of: id), let record = state.records[id] else { return .none }
            switch (phase, intent) {
            case (.queued, .pause):
                state.scheduler.set(id, to: .paused)
                return .pausedAtOnce
            case (.pausing, .pause) where record.stop == .restart:
                // A pause overrides a restart on its way (its new request is still taken).
                state.records[id]?.stop = .pause
                return .none
            case (.paused, .pause), (.pausing, .pause), (.queued, .requeue), (.paused, .requeue), (_, .restart):
                // (`update` sets a restart itself, under the lock.)
                return .none
            case (.queued, _), (.paused, _):
                state.scheduler.remove(id)
                return .cancelledAtOnce(record.request, record.path)
            case (.running, _), (.pausing, _):
                // A cancel overrides a pause on its way.
                state.scheduler.set(id, to: intent.keepsIt ? .pausing : .running)
                state.records[id]?.stop = intent
                return .stopRunning(record.download)
            }
        }
        switch action {
        case .none:
            return
        case .pausedAtOnce:
            emit(.paused(id))
        case .cancelledAtOnce(let request, let path):
            if intent == .cancelAndRemoveFiles {
                let partPath = (path ?? request.destination.expectedPath(for: request.url)) + ".part"
                unlink(partPath)
                ResumeStore(partPath: partPath).remove()
            }
            var error = DownloadError(.cancelled, "the download of \(request.url) was cancelled", url: request.url)
            if intent == .cancel { error.resumableFile = Self.resumableFile(of: request, path: path) }
            emit(.failed(id, error))
        case .stopRunning(let download):
            if intent == .cancelAndRemoveFiles { download?.cancelAndRemoveFiles() } else { download?.cancel() }
            return
        }
        changed()
    }
}
