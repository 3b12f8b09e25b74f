import Synchronization

/// The writer's end of an `EventStream`: `yield` from any thread, never blocking; `finish` ends
/// the stream after the events already waiting. Each reader has a buffer of its own (see
/// `EventBuffer`), so a slow reader never holds up another or the writer.
///
/// A waiting reader is resumed after the channel's lock is let go, never under it: resuming
/// takes the reader task's own lock, which the runtime holds while it cancels that task and
/// runs its cancellation handler, and that handler (ending the reader) takes the channel's
/// lock (both under the lock, a writer and a canceller deadlocked for good).
package final class EventChannel<Event: CoalescibleEvent>: Sendable {
    /// One reader's subscription; it ends the reader when released (a `for await` left early).
    package final class Reader: Sendable {
        let channel: EventChannel<Event>
        let id: Int

        init(channel: EventChannel<Event>, id: Int) {
            self.channel = channel
            self.id = id
        }

        deinit { channel.unsubscribe(id) }

        /// The next event for this reader; nil at the end, or once its task is cancelled.
        func next() async -> Event? {
            await channel.next(for: id)
        }
    }

    private struct Subscriber {
        var id: Int
        var buffer: EventBuffer<Event>
        var waiter: CheckedContinuation<Event?, Never>?
        /// Taken by an iterator (a channel that does not replay keeps one buffer from its start
        /// for the first reader).
        var claimed: Bool
        /// Its task was cancelled: it reads what waits, and nothing more.
        var ended = false
    }

    private struct State {
        /// What a new reader starts with: everything so far (progress coalesced), when replaying.
        var history: EventBuffer<Event>?
        var subscribers: [Subscriber] = []
        var nextID = 0
        var finished = false
    }

    private let state: Mutex<State>
    private let forward: (@Sendable (Event) -> Void)?
    private let limit: Int

    /// A channel keeping at most `limit` unread events per reader (see `EventBuffer`). With
    /// `replay` (the default) a reader that starts late first gets every event since the
    /// channel was made; without it, the first reader gets every event since then and later
    /// readers those after they start (for a channel made per reader, where a history would
    /// only double the memory).
    package init(limit: Int = 4096, replay: Bool = true) {
        self.limit = limit
        var state = State(history: replay ? EventBuffer(limit: limit) : nil)
        if !replay {
            state.subscribers = [Subscriber(id: 0, buffer: EventBuffer(limit: limit), claimed: false)]
            state.nextID = 1
        }
        self.state = Mutex(state)
        forward = nil
    }

    /// A channel that hands every event to `forward` at once, on the thread that yields it, in
    /// order (one at a time), instead of to readers: for an owner that must see every event
    /// without a task hop each (e.g. a queue of many small downloads). Its stream stays empty.
    /// `forward` runs under the channel's lock: the writer must not yield while holding a lock
    /// that `forward` may take.
    package init(forwardingTo forward: @escaping @Sendable (Event) -> Void) {
        state = Mutex(State(history: nil))
        limit = 1
        self.forward = forward
    }

    /// Hands `event` to every reader, waking those that wait; ignored after `finish`.
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
        let waiters = state.withLock { state -> [CheckedContinuation<Event?, Never>] in
            state.finished = true
            var waiters: [CheckedContinuation<Event?, Never>] = []
            for index in state.subscribers.indices {
                if let waiter = state.subscribers[index].waiter { waiters.append(waiter) }
                state.subscribers[index].waiter = nil
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    private func deliver(_ event: Event, last: Bool) {
        // The readers to resume, outside the lock: the first without an array (one waiting
        // reader is the common case; nothing is allocated for it).
        var first: CheckedContinuation<Event?, Never>?
        var more: [CheckedContinuation<Event?, Never>] = []
        state.withLock { state in
            guard !state.finished else { return }
            if last { state.finished = true }
            if let forward {
                forward(event)
                return
            }
            state.history?.append(event)
            for index in state.subscribers.indices where !state.subscribers[index].ended {
                if let waiter = state.subscribers[index].waiter {
                    state.subscribers[index].waiter = nil
                    if first == nil { first = waiter } else { more.append(waiter) }
                } else {
                    state.subscribers[index].buffer.append(event)
                }
            }
        }
        first?.resume(returning: event)
        for waiter in more { waiter.resume(returning: event) }
    }

    /// A new reader: the first one of a channel that does not replay takes the buffer kept
    /// since its start.
    func subscribe() -> Reader {
        let id: Int = state.withLock { state in
            if let index = state.subscribers.firstIndex(where: { !$0.claimed }) {
                state.subscribers[index].claimed = true
                return state.subscribers[index].id
            }
            let id = state.nextID
            state.nextID += 1
            state.subscribers.append(Subscriber(id: id, buffer: state.history ?? EventBuffer(limit: limit), claimed: true))
            return id
        }
        return Reader(channel: self, id: id)
    }

    private func unsubscribe(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Event?, Never>? in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.subscribers.remove(at: index).waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Ends reader `id` (its task was cancelled): it gets what is already waiting for it, then
    /// nil; nothing more is kept for it.
    private func end(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Event?, Never>? in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            state.subscribers[index].ended = true
            defer { state.subscribers[index].waiter = nil }
            return state.subscribers[index].waiter
        }
        waiter?.resume(returning: nil)
    }

    private func next(for id: Int) async -> Event? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // What to resume with at once (`.some`), or nothing: the reader waits.
                let now = state.withLock { state -> Event?? in
                    guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return .some(nil) }
                    if let event = state.subscribers[index].buffer.removeFirst() { return .some(event) }
                    if state.finished || state.subscribers[index].ended || Task.isCancelled { return .some(nil) }
                    state.subscribers[index].waiter = continuation
                    return .none
                }
                if case .some(let event) = now { continuation.resume(returning: event) }
            }
        } onCancel: {
            end(id)
        }
    }
}
