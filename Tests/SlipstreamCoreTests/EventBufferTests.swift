@testable import SlipstreamCore
import Testing

/// The buffer behind every reader of an `EventStream`: progress is newest-wins per key, in its
/// place; nothing else is lost unless the limit is passed.
@Suite struct EventBufferTests {
    static func drain(_ buffer: inout EventBuffer<TestEvent>) -> [TestEvent] {
        var seen: [TestEvent] = []
        while let event = buffer.removeFirst() { seen.append(event) }
        return seen
    }

    @Test func progressIsNewestWinsInItsPlaceAndNothingElseIsLost() {
        var buffer = EventBuffer<TestEvent>()
        buffer.append(.step(1))
        for bytes in 1...1000 { buffer.append(.progress(bytes, task: 1)) }
        buffer.append(.step(2))
        buffer.append(.progress(5, task: 2))
        buffer.append(.progress(1001, task: 1))
        buffer.append(.step(3))
        #expect(Self.drain(&buffer) == [.step(1), .progress(1001, task: 1), .step(2), .progress(5, task: 2), .step(3)])
        // Once read, a task's next snapshot is new again.
        buffer.append(.progress(7, task: 1))
        #expect(Self.drain(&buffer) == [.progress(7, task: 1)])
        #expect(buffer.isEmpty)
    }

    /// A reader that never reads holds at most `limit` events: the oldest go first.
    @Test func aBufferNobodyReadsStaysBounded() {
        var buffer = EventBuffer<TestEvent>(limit: 3)
        for step in 1...10 { buffer.append(.step(step)) }
        #expect(Self.drain(&buffer) == [.step(8), .step(9), .step(10)])
    }

    /// Many events read as they come: the buffer's storage is compacted, the order kept.
    @Test func aLongRunReadAsItComesKeepsOrder() {
        var buffer = EventBuffer<TestEvent>(limit: 100_000)
        var seen: [TestEvent] = []
        for step in 1...20_000 {
            buffer.append(.step(step))
            buffer.append(.progress(step))
            if step % 3 == 0, let event = buffer.removeFirst() { seen.append(event) }
        }
        seen += Self.drain(&buffer)
        #expect(seen.filter { if case .step = $0 { true } else { false } } == (1...20_000).map(TestEvent.step))
    }
}
