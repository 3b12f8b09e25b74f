import Testing
@testable import SlipstreamAudio

/// When the player tells of undecodable frames, and when it gives up on a stream, without a
/// player: outcomes and times in, reports and the verdict out.
struct DecodeTallyTests {
    static let second: Int64 = 1_000_000_000

    static func tally(decoded: Int, undecodable: Int, priming: Int = 0) -> DecodeTally {
        var tally = DecodeTally()
        for _ in 0..<decoded { tally.count(.decoded) }
        for _ in 0..<undecodable { tally.count(.undecodable) }
        for _ in 0..<priming { tally.count(.priming) }
        return tally
    }

    @Test func primingIsCountedNeitherWay() {
        let tally = Self.tally(decoded: 3, undecodable: 2, priming: 40)
        #expect(tally.total == 5 && tally.undecodable == 2)
    }

    /// More than half of at least 64 frames, in the middle of a stream; of any number at its end.
    @Test func mostOfTheStreamIsMoreThanHalfOfAtLeast64Frames() {
        #expect(Self.tally(decoded: 31, undecodable: 32).isMostlyUndecodable() == false)
        #expect(Self.tally(decoded: 31, undecodable: 33).isMostlyUndecodable())
        #expect(Self.tally(decoded: 32, undecodable: 32).isMostlyUndecodable() == false)
        #expect(Self.tally(decoded: 0, undecodable: 63).isMostlyUndecodable() == false)
        #expect(Self.tally(decoded: 0, undecodable: 63).isMostlyUndecodable(atEnd: true))
        #expect(Self.tally(decoded: 2, undecodable: 3).isMostlyUndecodable(atEnd: true))
        #expect(Self.tally(decoded: 3, undecodable: 3).isMostlyUndecodable(atEnd: true) == false)
        #expect(Self.tally(decoded: 0, undecodable: 0).isMostlyUndecodable(atEnd: true) == false)
        // A damaged start does not stop a long file: its good frames soon outnumber it.
        #expect(Self.tally(decoded: 10, undecodable: 54, priming: 4).isMostlyUndecodable())
        #expect(Self.tally(decoded: 1000, undecodable: 54).isMostlyUndecodable(atEnd: true) == false)
    }

    /// The first count at once, then at most one a second while it grows, and the final one
    /// whenever it grew; nothing when it did not.
    @Test func countsAreToldAtMostOnceASecondAndTheLastOneAlways() {
        var tally = DecodeTally()
        #expect(tally.report(now: 0, final: true) == nil)
        tally.count(.decoded)
        #expect(!tally.hasUnreported && tally.report(now: 0) == nil)
        tally.count(.undecodable)
        #expect(tally.hasUnreported)
        #expect(tally.report(now: 5)! == (1, 2))
        tally.count(.undecodable)
        #expect(tally.report(now: 5 + Self.second - 1) == nil)
        #expect(tally.hasUnreported)
        tally.count(.decoded)
        #expect(tally.report(now: 5 + Self.second)! == (2, 4))
        #expect(tally.report(now: 10 * Self.second) == nil)
        tally.count(.undecodable)
        #expect(tally.report(now: 5 + Self.second + 1, final: true)! == (3, 5))
        #expect(!tally.hasUnreported && tally.report(now: 20 * Self.second, final: true) == nil)
    }
}
