import Dispatch
import Glibc
import Synchronization
@testable import SlipstreamCore
import Testing

/// A stand-in event: lifecycle events by number, progress snapshots that coalesce per task.
enum TestEvent: CoalescibleEvent, Equatable {
    case step(Int)
    case progress(Int, task: Int = 0)

    var coalescingKey: Int? {
        if case .progress(_, let task) = self { task } else { nil }
    }
}

/// `EventStream` with several readers: each gets every event, late ones the history too,
/// and cancelling or leaving one reader ends nothing else.
@Suite struct EventStreamTests {
    static func readAll(_ stream: EventStream<TestEvent>) async -> [TestEvent] {
        var seen: [TestEvent] = []
        for await event in stream { seen.append(event) }
        return seen
    }

    @Test func twoReadersAtOnceEachGetEveryEvent() async {
        let channel = EventChannel<TestEvent>()
        let stream = EventStream(channel)
        async let first = Self.readAll(stream)
        async let second = Self.readAll(stream)
        // The writer runs on a thread of its own, as the engine's does.
        DispatchQueue.global().async {
            for step in 1...1000 { channel.yield(.step(step)) }
            channel.finish(after: .step(1001))
        }
        let expected = (1...1001).map(TestEvent.step)
        let (a, b) = await (first, second)
        #expect(a == expected)
        #expect(b == expected)
    }

    @Test func aReaderThatStartsLateGetsTheHistoryWithProgressCoalesced() async {
        let channel = EventChannel<TestEvent>()
        channel.yield(.step(1))
        for bytes in 1...100 { channel.yield(.progress(bytes)) }
        channel.yield(.step(2))
        let early = channel.subscribe()
        channel.finish(after: .step(3))
        #expect(await Self.readAll(EventStream(channel)) == [.step(1), .progress(100), .step(2), .step(3)])
        var seen: [TestEvent] = []
        while let event = await early.next() { seen.append(event) }
        #expect(seen == [.step(1), .progress(100), .step(2), .step(3)])
    }

    @Test func cancellingOneReaderLeavesTheOtherReading() async {
        let channel = EventChannel<TestEvent>()
        let stream = EventStream(channel)
        let cancelled = Task { await Self.readAll(stream) }
        let kept = Task { await Self.readAll(stream) }
        channel.yield(.step(1))
        cancelled.cancel()
        _ = await cancelled.value
        channel.yield(.step(2))
        channel.finish()
        #expect(await kept.value == [.step(1), .step(2)])
    }

    /// A cancelled reader still gets what already waited for it (e.g. the last ends a queue
    /// told before it went idle), then the end.
    @Test func aCancelledReaderGetsWhatWaitsThenEnds() async {
        let channel = EventChannel<TestEvent>()
        let reader = channel.subscribe()
        channel.yield(.step(1))
        channel.yield(.step(2))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var seen: [TestEvent] = []
            while let event = await reader.next() { seen.append(event) }
            return seen
        }
        #expect(await task.value == [.step(1), .step(2)])
        channel.yield(.step(3))
        #expect(await reader.next() == nil)
    }

    @Test func aReaderLeftEarlyIsForgotten() async {
        let channel = EventChannel<TestEvent>()
        channel.yield(.step(1))
        var iterator: EventStream<TestEvent>.AsyncIterator? = EventStream(channel).makeAsyncIterator()
        #expect(await iterator?.next() == .step(1))
        iterator = nil
        // Its buffer is gone: events after it went are kept only for readers still there.
        for step in 2...10 { channel.yield(.step(step)) }
        channel.finish()
        #expect(await Self.readAll(EventStream(channel)).count == 10)
    }

    @Test func withoutReplayTheFirstReaderGetsEverythingSinceTheStartAndLaterOnesWhatFollows() async {
        let channel = EventChannel<TestEvent>(replay: false)
        channel.yield(.step(1))
        let first = channel.subscribe()
        let second = channel.subscribe()
        channel.finish(after: .step(2))
        var seen: [[TestEvent]] = [[], []]
        for (index, reader) in [first, second].enumerated() {
            while let event = await reader.next() { seen[index].append(event) }
        }
        #expect(seen == [[.step(1), .step(2)], [.step(2)]])
    }

    @Test func aForwardingChannelHandsEveryEventOverAndKeepsNone() async {
        let received = Counter()
        let channel = EventChannel<TestEvent>(forwardingTo: { _ in received.add() })
        for step in 1...5 { channel.yield(.step(step)) }
        channel.finish()
        #expect(received.value == 5)
        #expect(await Self.readAll(EventStream(channel)).isEmpty)
    }
}

/// A count shared with a closure.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Readers cancelled while the writer delivers to them: the channel never resumes a reader under
/// its lock, which the runtime's cancellation of that reader (holding the task's own lock while
/// it ends the reader) may be waiting for. Before, a queue of 200 downloads hung that way for
/// good one run in several (seen with gdb: one thread in `deliver` resuming a reader, under the
/// channel's lock; another cancelling that reader, in `end`, waiting for it).
@Suite struct EventStreamCancellationTests {
    @Test func cancellingReadersWhileEventsFlowNeverHangs() async {
        let channel = EventChannel<TestEvent>(replay: false)
        let stream = EventStream(channel)
        let done = Mutex(false)
        // The writer runs on a thread of its own, as the engine's does, until the readers are done.
        DispatchQueue.global().async {
            var step = 0
            while !done.withLock({ $0 }) {
                channel.yield(.step(step))
                step += 1
                if step % 4 == 0 { usleep(20) }
            }
            channel.finish()
        }
        for round in 0..<200 {
            let reading = DispatchSemaphore(value: 0)
            let readers = (0..<8).map { _ in
                Task {
                    var first = true
                    for await _ in stream where first {
                        first = false
                        reading.signal()
                    }
                }
            }
            // Once every reader reads (waiting between events), each is cancelled from a thread
            // of its own, a little apart, while events arrive.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    for _ in readers { reading.wait() }
                    DispatchQueue.concurrentPerform(iterations: readers.count) { index in
                        for _ in 0..<(index * 37 + round) % 200 { _ = done.withLock { $0 } }
                        readers[index].cancel()
                    }
                    continuation.resume()
                }
            }
            for reader in readers { await reader.value }
        }
        done.withLock { $0 = true }
    }
}
