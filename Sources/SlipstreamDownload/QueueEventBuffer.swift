/// Events waiting for a reader, in order, with progress kept bounded: a new progress snapshot
/// of a download replaces the one still waiting (in its place), so a lagging reader holds at
/// most one snapshot per download and never loses any other event. Pure.
struct QueueEventBuffer: Sendable {
    private var events: [DownloadQueueEvent?] = []
    private var head = 0
    /// Where each download's waiting progress snapshot is.
    private var progressIndex: [DownloadQueue.ID: Int] = [:]

    var isEmpty: Bool { head == events.count }

    mutating func append(_ event: DownloadQueueEvent) {
        if case .progress(let id, _) = event, let index = progressIndex[id] {
            events[index] = event
            return
        }
        if case .progress(let id, _) = event { progressIndex[id] = events.count }
        events.append(event)
    }

    mutating func removeFirst() -> DownloadQueueEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        events[head] = nil
        head += 1
        if case .progress(let id, _)? = event { progressIndex[id] = nil }
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= events.count {
            events.removeFirst(head)
            progressIndex = progressIndex.mapValues { $0 - head }
            head = 0
        }
        return event
    }
}
