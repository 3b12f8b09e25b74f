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

/// Events as an `AsyncSequence` that any number of tasks may read at once: each `for await`
/// (each iterator) is a reader of its own and gets every event, in order. None is dropped that
/// must be read (start, end, retries, notices, state changes); of progress snapshots only the
/// newest unread one of each kind is kept, so memory stays bounded however far a reader lags.
///
/// A reader that starts late still gets what happened before it (for a download's or a
/// player's stream: everything since the start, older progress coalesced). A reader's
/// sequence ends after the writer finishes the stream, or when the reader's task is
/// cancelled (after the events already waiting for it); ending one reader ends nothing else.
public struct EventStream<Event: CoalescibleEvent>: AsyncSequence, Sendable {
    public typealias Element = Event

    let channel: EventChannel<Event>

    /// A stream reading what `channel` is given.
    package init(_ channel: EventChannel<Event>) {
        self.channel = channel
    }

    /// One reader's view of the events, in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: EventChannel<Event>.Reader

        /// The next event; nil at the end (or once the reading task is cancelled).
        public mutating func next() async -> Event? {
            await reader.next()
        }
    }

    /// A new reader of the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: channel.subscribe())
    }
}
