import Testing
import TestSupport
@testable import SlipstreamDownload

@Suite struct PieceMapTests {
    @Test func firstAssignmentTakesTheWholeFile() {
        var map = PieceMap(size: 100, minimumSplitSize: 10)
        let first = map.assign()
        #expect(first?.start == 0 && first?.end == 100)
        #expect(map.free.isEmpty)
        #expect(map.isConsistent())
    }

    @Test func idleConnectionsBisectTheLargestRemainder() {
        var map = PieceMap(size: 1 << 30, minimumSplitSize: 1 << 20)
        let ids = (0..<8).compactMap { _ in map.assign()?.id }
        #expect(ids.count == 8)
        // Powers of two split evenly: eight runs of 128 MiB.
        #expect(Set(map.assignments.values.map(\.remaining)) == [128 << 20])
        #expect(map.isConsistent())
    }

    @Test func noSplitBelowTheMinimumSize() {
        var map = PieceMap(size: 3 << 20, minimumSplitSize: 1 << 20)
        _ = map.assign()
        let second = map.assign()
        #expect(second?.remaining == (3 << 20) - (3 << 19))
        // 1.5 MiB left on each: halves of 0.75 MiB are below the minimum.
        #expect(map.assign() == nil)
    }

    @Test func splitRespectsWrittenBytes() {
        var map = PieceMap(size: 100, minimumSplitSize: 10)
        let first = map.assign()!
        map.commit(first.id, count: 60)
        let second = map.assign()!
        #expect(second.start == 80 && second.end == 100)
        #expect(map.assignment(first.id)?.end == 80)
        #expect(map.isConsistent())
    }

    @Test func endGameSplitTakesASmallTailBelowTheMinimum() {
        var map = PieceMap(size: 1 << 20, minimumSplitSize: 1 << 20)
        let only = map.assign()!
        map.commit(only.id, count: (1 << 20) - (256 << 10))
        #expect(map.assign() == nil)
        let tail = map.split(only.id, minimumPart: 64 << 10)
        #expect(tail?.start == (1 << 20) - (128 << 10) && tail?.end == 1 << 20)
        #expect(map.split(only.id, minimumPart: 128 << 10) == nil)
        #expect(map.isConsistent())
    }

    @Test func splitAtAnOffsetHandsOutTheTailFromThere() {
        var map = PieceMap(size: 1000, minimumSplitSize: 100)
        let only = map.assign()!
        map.commit(only.id, count: 300)
        // Only inside the unwritten part: not at the next byte, not at the end.
        #expect(map.split(only.id, at: 300) == nil)
        #expect(map.split(only.id, at: 1000) == nil)
        let tail = map.split(only.id, at: 950)
        #expect(tail?.start == 950 && tail?.end == 1000)
        #expect(map.assignment(only.id)?.end == 950)
        #expect(map.isConsistent())
    }

    @Test func releaseReturnsTheUnwrittenPartToFree() {
        var map = PieceMap(size: 100, minimumSplitSize: 10)
        let first = map.assign()!
        map.commit(first.id, count: 30)
        map.release(first.id)
        #expect(map.free.ranges == [30..<100])
        #expect(map.completedBytes == 30)
        let again = map.assign()!
        #expect(again.start == 30 && again.end == 100)
        #expect(map.isConsistent())
    }

    @Test func commitFinishesAndCompletes() {
        var map = PieceMap(size: 10, minimumSplitSize: 1)
        let a = map.assign()!
        #expect(map.commit(a.id, count: 4) == false)
        #expect(map.commit(a.id, count: 6) == true)
        #expect(map.assignment(a.id) == nil)
        #expect(map.isComplete)
    }

    @Test func emptyFileIsCompleteAtOnce() {
        var map = PieceMap(size: 0)
        #expect(map.isComplete)
        #expect(map.assign() == nil)
    }

    @Test func resumeStartsFromDoneRanges() {
        var map = PieceMap(size: 100, minimumSplitSize: 10, done: ByteRanges([0..<20, 50..<60]))
        #expect(map.free.ranges == [20..<50, 60..<100])
        #expect(map.assign()?.start == 60)
        #expect(map.assign()?.start == 20)
        #expect(map.isConsistent())
    }

    /// Random interleavings of start, write, finish, fail and steal: every byte is always in
    /// exactly one place, and a write never lands on a byte that another assignment owns.
    @Test(arguments: 1...40)
    func randomInterleavingsKeepEveryByteInOnePlace(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let size = Int64.random(in: 0...5_000_000, using: &random)
        var map = PieceMap(size: size, minimumSplitSize: Int64.random(in: 1...200_000, using: &random))
        var writtenRanges = ByteRanges()
        var steps = 0
        while !map.isComplete {
            steps += 1
            #expect(steps < 100_000)
            if steps >= 100_000 { return }
            let running = Array(map.assignments.keys).sorted()
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2 where running.count < 16:
                _ = map.assign()
            case 3 where !running.isEmpty:
                map.release(running.randomElement(using: &random)!)
            default:
                guard let id = running.randomElement(using: &random), let a = map.assignment(id) else {
                    _ = map.assign()
                    continue
                }
                let count = Int64.random(in: 0...min(a.remaining, 300_000), using: &random)
                let range = a.next..<(a.next + count)
                #expect(!writtenRanges.overlaps(range), "a byte written twice")
                writtenRanges.insert(range)
                map.commit(id, count: count)
            }
            #expect(map.isConsistent())
        }
        #expect(writtenRanges.byteCount == size)
    }
}
