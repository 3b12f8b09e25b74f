/// The progress of an HLS download's resources, fed the events of the `DownloadQueue` that
/// fetches them: what to tell, when to stop the others (the first failure), when every
/// resource has ended. Pure: no I/O, no clock.
struct HLSDownloadTally: Sendable {
    /// What one event of the queue gives.
    struct Step {
        /// The events to tell, in order.
        var events: [HLSDownloadEvent] = []
        /// The first failure: stop the other resources (their files stay for the next run).
        var stopOthers = false
        /// Every resource added has finished or failed.
        var allEnded = false
    }

    private let plan: HLSDownloadPlan
    /// The resource each download of the queue fetches.
    private let resources: [DownloadQueue.ID: Int]
    private var completedResources: Int
    /// The sizes of the resources done, earlier runs' included.
    private var completedBytes: Int64
    /// The latest progress of each resource under way.
    private var running: [DownloadQueue.ID: DownloadProgress] = [:]
    private var ended = 0
    /// Resources fetched by this run.
    private(set) var fetched = 0
    /// The first failure, its message naming the resource.
    private(set) var failure: DownloadError?

    /// A tally of `plan`'s resources, `resumedResources` of them (of `resumedBytes` bytes)
    /// already on disk and the others fetched by the queue's downloads `resources`.
    init(plan: HLSDownloadPlan, resources: [DownloadQueue.ID: Int], resumedResources: Int, resumedBytes: Int64) {
        self.plan = plan
        self.resources = resources
        completedResources = resumedResources
        completedBytes = resumedBytes
    }

    /// Every resource has ended (at once when none was to be fetched).
    var allEnded: Bool { ended == resources.count }

    /// The progress now.
    var progress: HLSDownloadProgress {
        HLSDownloadProgress(
            completedResources: completedResources, resourceCount: plan.resources.count,
            completedBytes: completedBytes + running.values.reduce(0) { $0 + $1.completedBytes },
            knownBytes: completedBytes + running.values.reduce(0) { $0 + ($1.totalBytes ?? $1.completedBytes) },
            bytesPerSecond: running.values.reduce(0) { $0 + $1.bytesPerSecond })
    }

    /// Takes one event of the queue.
    mutating func take(_ event: DownloadQueueEvent) -> Step {
        guard let resource = resources[event.id] else { return Step() }
        var step = Step()
        switch event {
        case .progress(let id, let progress):
            running[id] = progress
            step.events = [.progress(self.progress)]
        case .finished(let id, let result):
            running[id] = nil
            ended += 1
            fetched += 1
            completedResources += 1
            completedBytes += result.bytes
            step.events = [.progress(progress)]
        case .failed(let id, let error):
            running[id] = nil
            ended += 1
            if failure == nil {
                failure = plan.described(error, resource: resource)
                step.stopOthers = true
            }
        case .retrying(_, let error, let attempt, let delay):
            step.events = [.retrying(error: plan.described(error, resource: resource), attempt: attempt, delay: delay)]
        case .queued, .started, .notice, .paused:
            break
        }
        step.allEnded = allEnded
        return step
    }
}

extension HLSDownloadPlan {
    /// `error`, of resource `index`'s download, its message naming the resource:
    /// "segment 12 (URL): what went wrong", the URL said once.
    func described(_ error: DownloadError, resource index: Int) -> DownloadError {
        let prefix = resources[index].url + ": "
        let message = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
        var described = error
        described.message = describe(resource: index) + ": " + message
        return described
    }
}
