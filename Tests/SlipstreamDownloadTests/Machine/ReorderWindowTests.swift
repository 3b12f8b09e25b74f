@testable import SlipstreamDownload
import SlipstreamCore
import Testing

/// The reorder core of a stream destination, without I/O: what it takes, what it refuses,
/// what it hands out to write, and the memory it accounts.
@Suite struct ReorderWindowTests {
    @Test func bytesAheadOfAGapWaitUntilItCloses() {
        var window = ReorderWindow(capacity: 1000)
        let ahead = [window.arrive(at: 200, count: 100), window.arrive(at: 400, count: 100)]
        #expect(ahead == [true, true])
        let nothingReady = window.nextWrite()
        #expect(nothingReady == nil)
        #expect(window.held == 200)
        let gapClosed = window.arrive(at: 0, count: 200)
        let first = window.nextWrite()
        #expect(gapClosed && first == 0..<300)
        let room = window.wrote(300)
        #expect(!room)
        let secondGapClosed = window.arrive(at: 300, count: 100)
        let second = window.nextWrite()
        #expect(secondGapClosed && second == 300..<500)
        _ = window.wrote(200)
        #expect(window.held == 0)
        #expect(window.position == 500)
    }

    @Test func theRingWrapsAtItsSize() {
        var window = ReorderWindow(capacity: 1000)
        _ = window.arrive(at: 0, count: 900)
        _ = window.nextWrite()
        _ = window.wrote(900)
        let taken = window.arrive(at: 900, count: 300)
        #expect(taken)
        #expect(window.ringIndex(900) == 900 && window.ringIndex(1000) == 0)
        // Handed out in two parts: the ring's end, then its start.
        let parts = [window.nextWrite(), window.nextWrite()]
        #expect(parts == [900..<1000, 1000..<1200])
    }

    @Test func aSliceBeyondTheWindowIsRefusedUntilItFitsWithSpare() {
        var window = ReorderWindow(capacity: 1000)
        _ = window.arrive(at: 0, count: 500)
        let beyond = window.arrive(at: 900, count: 200)
        #expect(!beyond)
        #expect(window.waitingEnd == 1100)
        // Written up to 200: the slice would fit (1100 <= 1200) but not with an eighth spare.
        _ = window.nextWrite()
        let early = window.wrote(200)
        let enough = window.wrote(100)
        #expect(!early && enough)
        #expect(window.waitingEnd == nil)
        let again = window.arrive(at: 900, count: 200)
        #expect(again)
    }

    @Test func aFullWindowTellsAGapFromASlowWriter() {
        var gap = ReorderWindow(capacity: 1000)
        _ = gap.arrive(at: 100, count: 800)
        #expect(gap.isHeldUpByAGap)
        var slowWriter = ReorderWindow(capacity: 1000)
        _ = slowWriter.arrive(at: 0, count: 900)
        _ = slowWriter.nextWrite()
        #expect(!slowWriter.isHeldUpByAGap)
    }

    /// A slow reader: connections deliver in a random order as fast as they are let, the writer
    /// writes a little now and then. The ring never holds more than its size, every refused
    /// connection is told room in time, and the bytes come out in order, each once.
    @Test(arguments: [1 as UInt64, 2, 3, 4, 5])
    func aSlowReaderKeepsTheMemoryWithinTheWindow(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let size: Int64 = 2_000_000
        let capacity: Int64 = 64 << 10
        let slice = 4096
        // Eight connections, each with every eighth piece of 16 KiB, lowest first.
        let piece: Int64 = 16 << 10
        var next = (0..<8).map { Int64($0) * piece }
        var paused = Set<Int>()
        var window = ReorderWindow(capacity: capacity)
        var out: Int64 = 0
        var maxHeld: Int64 = 0
        while out < size {
            let active = (0..<8).filter { !paused.contains($0) && next[$0] < size }
            // The reader writes what is ready one time in five (or when nothing else can move).
            if active.isEmpty || Int.random(in: 0..<5, using: &random) == 0 {
                guard let range = window.nextWrite() else {
                    if active.isEmpty {
                        Issue.record("stuck at \(out): every connection waits and nothing is ready")
                        return
                    }
                    continue
                }
                #expect(range.lowerBound == out)
                out += Int64(range.count)
                if window.wrote(range.count) { paused.removeAll() }
                continue
            }
            let connection = active[Int.random(in: 0..<active.count, using: &random)]
            let offset = next[connection]
            let pieceEnd = (offset / piece + 1) * piece
            let count = Int(min(Int64(slice), pieceEnd - offset, size - offset))
            if window.arrive(at: offset, count: count) {
                next[connection] = offset + Int64(count) == pieceEnd ? pieceEnd + 7 * piece : offset + Int64(count)
            } else {
                paused.insert(connection)
            }
            maxHeld = max(maxHeld, window.held)
        }
        #expect(maxHeld <= capacity)
        #expect(maxHeld > capacity / 2, "the window was used")
        #expect(window.position == size)
    }

    @Test func inOrderPiecesComeLowestFirstAndNoLargerThanAsked() {
        var map = PieceMap(size: 10_000, minimumSplitSize: 1000)
        let first = map.assign(from: 0, upTo: 1500)
        #expect(first?.start == 0 && first?.end == 1500)
        let second = map.assign(inOrderUpTo: 1500)
        #expect(second?.start == 1500 && second?.end == 3000)
        map.release(first!.id)
        // A piece given back is the lowest again.
        let again = map.assign(inOrderUpTo: 1500)
        #expect(again?.start == 0)
        #expect(map.isConsistent())
    }
}
