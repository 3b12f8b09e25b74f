import Synchronization

/// The events of a `DownloadQueue` (all of them, or one download's) as an `AsyncSequence` for
/// one reader. Lifecycle events are never dropped; progress is newest-wins per download (see
/// `DownloadQueueEvent.progress`). It ends when the reader's task is cancelled, or when the
/// download it follows has ended.
public struct DownloadQueueEvents: AsyncSequence, Sendable {
    public typealias Element = DownloadQueueEvent

    final class Channel: Sendable {
        private struct State {
            var buffer = QueueEventBuffer()
            var waiter: CheckedContinuation<DownloadQueueEvent?, Never>?
            var finished = false
        }

        private let state = Mutex(State())

        func yield(_ event: DownloadQueueEvent) {
            let waiter: CheckedContinuation<DownloadQueueEvent?, Never>? = state.withLock { state in
                guard !state.finished else { return nil }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.buffer.append(event)
                return nil
            }
            waiter?.resume(returning: event)
        }

        /// Ends the sequence after the events already waiting.
        func finish() {
            let waiter = state.withLock { state in
                state.finished = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }

        func next() async -> DownloadQueueEvent? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ready: DownloadQueueEvent?? = state.withLock { state in
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

    let channel: Channel

    /// Reads the events in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: Channel

        /// The next event; nil at the end.
        public mutating func next() async -> DownloadQueueEvent? {
            await channel.next()
        }
    }

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel)
    }
}
