/// Events waiting for a reader, in order, with progress kept bounded: an event with a
/// coalescing key (a progress snapshot) replaces the one of the same key still waiting, in its
/// place, so a lagging reader holds at most one snapshot per key and loses no other event
/// unless `limit` of them wait (then the oldest goes: only a reader that never reads, or is
/// hopelessly behind, loses anything, and memory stays bounded). Pure.
package struct EventBuffer<Event: CoalescibleEvent>: Sendable {
    private var events: [Event?] = []
    private var head = 0
    /// Where the waiting event of each coalescing key is.
    private var waitingIndex: [Event.CoalescingKey: Int] = [:]
    /// The most events kept waiting.
    package let limit: Int

    /// An empty buffer keeping at most `limit` events (default 4096).
    package init(limit: Int = 4096) {
        self.limit = max(limit, 1)
    }

    /// Whether no event waits.
    package var isEmpty: Bool { head == events.count }

    /// Adds `event` at the end, or in the place of the waiting event with its coalescing key.
    package mutating func append(_ event: Event) {
        defer { if events.count - head > limit { _ = removeFirst() } }
        guard let key = event.coalescingKey else {
            events.append(event)
            return
        }
        if let index = waitingIndex[key] {
            events[index] = event
            return
        }
        waitingIndex[key] = events.count
        events.append(event)
    }

    /// The oldest waiting event, taken out; nil when none waits.
    package mutating func removeFirst() -> Event? {
        guard head < events.count else { return nil }
        let event = events[head]
        events[head] = nil
        head += 1
        if let key = event?.coalescingKey { waitingIndex[key] = nil }
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= events.count {
            events.removeFirst(head)
            waitingIndex = waitingIndex.mapValues { $0 - head }
            head = 0
        }
        return event
    }
}
