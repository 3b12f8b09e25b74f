import Synchronization

/// An event of an `EventStream`: progress snapshots give a coalescing key, so that a newer one
/// replaces an older one a reader has not taken yet; every other event gives nil and is kept.
public protocol CoalescibleEvent: Sendable {
    /// What a newer event replaces an unread older one of (e.g. the download a progress
    /// snapshot is about).
    associatedtype CoalescingKey: Hashable & Sendable
    /// The key of an event that may replace an unread one of the same key; nil for one that
    /// must be read.
    var coalescingKey: CoalescingKey? { get }
}

/// Events as an `AsyncSequence` for one reader, in order, never dropping an event that must be
/// read (start, end, retries, notices, state changes) while keeping only the newest unread
/// progress snapshot of each kind: bounded however far the reader lags, without losing what
/// it waits for. It ends after the writer finishes it, or when the reader's task is cancelled.
public struct EventStream<Event: CoalescibleEvent>: AsyncSequence, Sendable {
    public typealias Element = Event

    let channel: EventChannel<Event>

    /// A stream reading what `channel` is given.
    package init(_ channel: EventChannel<Event>) {
        self.channel = channel
    }

    /// Reads the events in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: EventChannel<Event>

        /// The next event; nil at the end.
        public mutating func next() async -> Event? {
            await channel.next()
        }
    }

    /// An iterator over the events (one reader).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel)
    }
}

/// The writer's end of an `EventStream`: `yield` from any thread, never blocking; `finish` ends
/// the stream after the events already waiting.
package final class EventChannel<Event: CoalescibleEvent>: Sendable {
    private struct State {
        var buffer: EventBuffer<Event>
        var waiter: CheckedContinuation<Event?, Never>?
        var finished = false
    }

    private let state: Mutex<State>
    private let forward: (@Sendable (Event) -> Void)?

    /// A channel with nothing waiting, keeping at most `limit` unread events (see `EventBuffer`).
    package init(limit: Int = 4096) {
        state = Mutex(State(buffer: EventBuffer(limit: limit)))
        forward = nil
    }

    /// A channel that hands every event to `forward` at once, on the thread that yields it, in
    /// order (one at a time), instead of to a reader: for an owner that must see every event
    /// without a task hop each (e.g. a queue of many small downloads). Its stream stays empty.
    /// `forward` runs under the channel's lock: the writer must not yield while holding a lock
    /// that `forward` may take.
    package init(forwardingTo forward: @escaping @Sendable (Event) -> Void) {
        state = Mutex(State(buffer: EventBuffer(limit: 1)))
        self.forward = forward
    }

    /// Hands `event` to the waiting reader, or keeps it for the next read; ignored after `finish`.
    package func yield(_ event: Event) {
        deliver(event, last: false)
    }

    /// Yields `event` and ends the stream after it, at once: nothing yielded later (say by a
    /// thread that was about to tell older news) comes after it.
    package func finish(after event: Event) {
        deliver(event, last: true)
    }

    /// Ends the stream after the events already waiting.
    package func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    private func deliver(_ event: Event, last: Bool) {
        let waiter: CheckedContinuation<Event?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if last { state.finished = true }
            if let forward {
                forward(event)
                return nil
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    func next() async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Event?? = state.withLock { state in
                    if let event = state.buffer.removeFirst() { return .some(event) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
