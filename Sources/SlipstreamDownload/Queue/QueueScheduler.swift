/// Decides which downloads of a queue start next: in priority order, at most
/// `maxConcurrentDownloads` running at once, each only when its host has a free connection
/// permit. Pure: the queue tells it what happened and asks it what to start.
struct QueueScheduler: Sendable, Equatable {
    /// Where a download is in its life.
    enum Phase: Sendable, Equatable {
        /// Waiting for its turn.
        case queued
        /// Started (it holds a slot and its host permit).
        case running
        /// Asked to pause while running: holds its slot until its transfers have stopped.
        case pausing
        /// Paused: waits for `resume`, holding nothing.
        case paused

        /// Holding a slot.
        var isActive: Bool { self == .running || self == .pausing }
    }

    struct Item: Sendable, Equatable {
        var id: DownloadQueue.ID
        /// Its host's place in `hosts`.
        var host: Int
        var phase: Phase
    }

    /// What to do now.
    struct Decision: Sendable, Equatable {
        /// Downloads to start, in order (each has a permit of its host counted).
        var start: [DownloadQueue.ID] = []
        /// Hosts with downloads that would start but for a permit, and how many.
        var waitingHosts: [String: Int] = [:]
    }

    /// The downloads still in the queue, highest priority first.
    private(set) var items: [Item] = []
    /// Every host a download was added for, each once (a scan of the queue compares numbers,
    /// not names: it runs at every event, over every download).
    private(set) var hosts: [String] = []
    private var hostNumbers: [String: Int] = [:]
    /// Downloads running at once at most.
    var maxConcurrentDownloads: Int

    init(maxConcurrentDownloads: Int) {
        self.maxConcurrentDownloads = max(maxConcurrentDownloads, 1)
    }

    /// Running or pausing: holding a slot (kept as the phases change).
    private(set) var activeCount = 0
    /// Queued: waiting for a slot (kept as the phases change), so that a queue of thousands of
    /// paused downloads decides in no time.
    private(set) var queuedCount = 0

    /// Whether nothing runs or waits to run (paused downloads may remain).
    var isIdle: Bool { activeCount == 0 && queuedCount == 0 }

    func phase(of id: DownloadQueue.ID) -> Phase? {
        items.first { $0.id == id }?.phase
    }

    /// Adds a download at the end (lowest priority).
    mutating func add(_ id: DownloadQueue.ID, host: String, paused: Bool = false) {
        items.append(Item(id: id, host: number(of: host), phase: paused ? .paused : .queued))
        if !paused { queuedCount += 1 }
    }

    /// A download's URL changed: it now needs a permit of `host`.
    mutating func setHost(_ id: DownloadQueue.ID, to host: String) {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        items[index].host = number(of: host)
    }

    /// The place of `host` in `hosts`, added if new.
    private mutating func number(of host: String) -> Int {
        if let number = hostNumbers[host] { return number }
        hosts.append(host)
        hostNumbers[host] = hosts.count - 1
        return hosts.count - 1
    }

    mutating func set(_ id: DownloadQueue.ID, to phase: Phase) {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        activeCount += (phase.isActive ? 1 : 0) - (items[index].phase.isActive ? 1 : 0)
        queuedCount += (phase == .queued ? 1 : 0) - (items[index].phase == .queued ? 1 : 0)
        items[index].phase = phase
    }

    /// Takes a download out (it ended, or was cancelled).
    mutating func remove(_ id: DownloadQueue.ID) {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        if items[index].phase.isActive { activeCount -= 1 }
        if items[index].phase == .queued { queuedCount -= 1 }
        items.remove(at: index)
    }

    /// Moves a download to `position` in priority order (0: first; clamped to the ends).
    mutating func move(_ id: DownloadQueue.ID, to position: Int) {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        let item = items.remove(at: index)
        items.insert(item, at: min(max(position, 0), items.count))
    }

    /// The place of a waiting download (queued or paused) among the waiting ones, first 0, as
    /// aria2 counts them; nil for one that holds a slot, or is unknown.
    func waitingPosition(of id: DownloadQueue.ID) -> Int? {
        var position = 0
        for item in items {
            if item.id == id { return item.phase.isActive ? nil : position }
            if !item.phase.isActive { position += 1 }
        }
        return nil
    }

    /// The number of waiting downloads (queued or paused).
    var waitingCount: Int { items.count - activeCount }

    /// Moves a waiting download to `position` among the waiting ones (clamped to the ends),
    /// as aria2's `changePosition`; the downloads holding a slot keep their places. Returns
    /// the position it got; nil (nothing moves) for one that holds a slot, or is unknown.
    mutating func move(_ id: DownloadQueue.ID, toWaitingPosition position: Int) -> Int? {
        guard let index = items.firstIndex(where: { $0.id == id }), !items[index].phase.isActive else { return nil }
        let item = items.remove(at: index)
        let waiting = items.indices.filter { !items[$0].phase.isActive }
        let target = min(max(position, 0), waiting.count)
        items.insert(item, at: target < waiting.count ? waiting[target] : items.count)
        return target
    }

    /// Which queued downloads start now, given the free permits of each host, and marks them
    /// running. A download whose host is full waits (its host is named in the decision) and a
    /// later one of another host may start in its place.
    mutating func decide(freePermits: (String) -> Int) -> Decision {
        var decision = Decision()
        var slots = maxConcurrentDownloads - activeCount
        guard slots > 0, queuedCount > 0 else { return decision }
        var free = [Int?](repeating: nil, count: hosts.count)
        var waiting = [Int](repeating: 0, count: hosts.count)
        for index in items.indices where items[index].phase == .queued {
            guard slots > 0 else { break }
            let host = items[index].host
            let available = free[host] ?? freePermits(hosts[host])
            if available > 0 {
                free[host] = available - 1
                items[index].phase = .running
                activeCount += 1
                queuedCount -= 1
                decision.start.append(items[index].id)
                slots -= 1
            } else {
                free[host] = 0
                waiting[host] += 1
            }
        }
        for (host, count) in waiting.enumerated() where count > 0 { decision.waitingHosts[hosts[host]] = count }
        return decision
    }
}
