import SlipstreamHTTP
import Synchronization

/// The resources: each a download of its own, into the part folder, over one `DownloadQueue`.
extension HLSDownloadRun {
    /// Fetches the resources `missing` of `plan` (those of `info` fetched before are on disk).
    /// The first failure stops the others (their files stay for the next run) and is thrown,
    /// naming its resource; cancelling the task stops them all and throws `.cancelled`.
    /// Returns the number of resources fetched.
    func fetch(_ missing: [Int], of plan: HLSDownloadPlan, info: HLSDownloadInfo) async throws(DownloadError) -> Int {
        let engine = engine
        let queue = DownloadQueue(engine: engine, configuration: queueConfiguration)
        let queueEvents = queue.events { event in
            switch event {
            case .progress, .retrying, .finished, .failed: true
            default: false
            }
        }
        // A player taking the resources (`kept`) hears of each end on the thread that tells it:
        // a busy Swift concurrency pool must not hold it back (it would stall, and fetch itself).
        // An end told before its download's index is noted waits for it.
        let routing = Mutex<(indices: [DownloadQueue.ID: Int], early: [DownloadQueue.ID: DownloadQueueEvent])>(([:], [:]))
        let kept = kept
        queue.observe { event in
            guard let id = event.endedDownload else { return }
            let index = routing.withLock { routing in
                if routing.indices[id] == nil { routing.early[id] = event }
                return routing.indices[id]
            }
            if let index { kept.tell(event, resource: index) }
        }
        var resources: [DownloadQueue.ID: Int] = [:]
        for index in missing {
            do throws(DownloadError) {
                let id = try queue.add(.init(url: plan.resources[index].url, destination: .file(folder.file(index))))
                resources[id] = index
                let early = routing.withLock { routing in
                    routing.indices[id] = index
                    return routing.early.removeValue(forKey: id)
                }
                if let early { kept.tell(early, resource: index) }
            } catch {
                await queue.stopAll()
                throw plan.described(error, resource: index)
            }
        }
        let ids = Dictionary(uniqueKeysWithValues: resources.map { ($0.value, $0.key) })
        kept.planned(
            urls: plan.resources.map(\.url), files: plan.resources.indices.map(folder.file),
            fetched: Set(plan.resources.indices).subtracting(missing)
        ) { index in
            if let id = ids[index] { queue.move(id, to: 0) }
        }
        let tally = Mutex(
            HLSDownloadTally(plan: plan, resources: resources, resumedResources: info.resumedResources, resumedBytes: info.resumedBytes))
        tell(tally.withLock { $0.progress })
        // Ends once every download has ended, or once cancelled (after a stop, those stopped
        // never end).
        let reader = Task { [self] in
            guard !tally.withLock({ $0.allEnded }) else { return }
            for await event in queueEvents {
                let (step, now) = tally.withLock { ($0.take(event), $0.progress) }
                progressNow.withLock { $0 = now }
                step.events.forEach(events.yield)
                if step.stopOthers { Task { await queue.stopAll() } }
                if step.allEnded { return }
            }
        }
        _ = try? await queue.waitUntilIdle()
        // Idle, every end is told: unless something was stopped, each download has ended and
        // the reader ends once it has read them all.
        if Task.isCancelled || tally.withLock({ $0.failure != nil }) { reader.cancel() }
        await reader.value
        if let failure = tally.withLock({ $0.failure }) { throw failure }
        try checkCancelled()
        return tally.withLock { $0.fetched }
    }

    /// The queue's settings: the resources' downloads, with the login for the playlist's
    /// server only (unless the configuration names its servers).
    private var queueConfiguration: DownloadQueue.Configuration {
        var queue = DownloadQueue.Configuration()
        queue.maxConcurrentDownloads = configuration.maxConcurrentDownloads
        queue.connectionsPerHost = configuration.connectionsPerHost
        // The tally keeps what each resource's end says: the queue keeps no outcomes (1,800 of
        // a 2 s segmented hour would be held for nothing).
        queue.keptOutcomes = 0
        queue.download = configuration.download
        queue.download.overwrite = false
        queue.download.checksum = nil
        queue.download.mirrors = []
        queue.download.loginOrigins = configuration.download.loginOrigins ?? URLOrigin(url).map { [$0] } ?? []
        return queue
    }
}

extension DownloadQueueEvent {
    /// The download that finished or failed, for an event that says so.
    fileprivate var endedDownload: DownloadQueue.ID? {
        switch self {
        case .finished(let id, _), .failed(let id, _): id
        default: nil
        }
    }
}

extension HLSKeptResources {
    /// Tells what `event` (a resource's end) says of resource `index`.
    fileprivate func tell(_ event: DownloadQueueEvent, resource index: Int) {
        switch event {
        case .finished: fetched(index)
        case .failed(_, let error): failed(index, error)
        default: break
        }
    }
}
