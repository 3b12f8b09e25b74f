import Testing
@testable import SlipstreamMedia

/// The fetches ahead, without I/O: how many, within the lookahead, racing the slow ones once,
/// cancelling those no longer coming.
struct HLSPrefetchPlanTests {
    typealias Plan = HLSPrefetchPlan

    /// The segment playing (`a`) and the next ones (`b`, `c` ...), 2 s each.
    static func upcoming(_ count: Int) -> [Plan.Upcoming] {
        (0..<count).map { Plan.Upcoming(key: String(UnicodeScalar(UInt8(97 + $0))), duration: 2, isPlaying: $0 == 0) }
    }

    @Test func theNextSegmentsAreFetchedAtOnceUpToTheCount() {
        #expect(
            Plan.actions(upcoming: Self.upcoming(6), fetches: [:], now: 0, segmentsAhead: 3, lookahead: nil)
                == [.fetch("b"), .fetch("c"), .fetch("d")])
        // What is fetched already is not fetched again.
        let started = ["b": Plan.Fetch(started: 0, isRaced: false, isDone: true)]
        #expect(
            Plan.actions(upcoming: Self.upcoming(6), fetches: started, now: 0.1, segmentsAhead: 3, lookahead: nil)
                == [.fetch("c"), .fetch("d")])
    }

    @Test func theLookaheadBoundsThemButOneIsAlwaysFetched() {
        #expect(
            Plan.actions(upcoming: Self.upcoming(6), fetches: [:], now: 0, segmentsAhead: 3, lookahead: 3) == [.fetch("b"), .fetch("c")])
        #expect(Plan.actions(upcoming: Self.upcoming(6), fetches: [:], now: 0, segmentsAhead: 3, lookahead: 0.5) == [.fetch("b")])
        #expect(Plan.actions(upcoming: Self.upcoming(1), fetches: [:], now: 0, segmentsAhead: 3, lookahead: nil).isEmpty)
    }

    @Test func aFetchSlowerThanItsSegmentIsRacedOnce() {
        var fetches = [
            "b": Plan.Fetch(started: 0, isRaced: false, isDone: false), "c": Plan.Fetch(started: 0, isRaced: false, isDone: true),
        ]
        let upcoming = Self.upcoming(3)
        #expect(Plan.actions(upcoming: upcoming, fetches: fetches, now: 1.9, segmentsAhead: 2, lookahead: nil).isEmpty)
        #expect(Plan.actions(upcoming: upcoming, fetches: fetches, now: 2.1, segmentsAhead: 2, lookahead: nil) == [.race("b")])
        fetches["b"]!.isRaced = true
        #expect(Plan.actions(upcoming: upcoming, fetches: fetches, now: 9, segmentsAhead: 2, lookahead: nil).isEmpty)
        // The segment playing, fetched ahead and waited for, is raced too.
        let playing = ["a": Plan.Fetch(started: 0, isRaced: false, isDone: false)]
        #expect(Plan.actions(upcoming: Self.upcoming(1), fetches: playing, now: 2.5, segmentsAhead: 2, lookahead: nil) == [.race("a")])
        // A segment claiming no length is raced after the minimum.
        let short = [Plan.Upcoming(key: "z", duration: 0, isPlaying: true)]
        let fetch = ["z": Plan.Fetch(started: 0, isRaced: false, isDone: false)]
        #expect(Plan.actions(upcoming: short, fetches: fetch, now: 0.4, segmentsAhead: 2, lookahead: nil).isEmpty)
        #expect(Plan.actions(upcoming: short, fetches: fetch, now: 0.6, segmentsAhead: 2, lookahead: nil) == [.race("z")])
    }

    @Test func fetchesOfSegmentsNoLongerComingAreCancelled() {
        let fetches = [
            "x": Plan.Fetch(started: 0, isRaced: false, isDone: false), "b": Plan.Fetch(started: 0, isRaced: false, isDone: false),
        ]
        #expect(Plan.actions(upcoming: Self.upcoming(2), fetches: fetches, now: 0.5, segmentsAhead: 1, lookahead: nil) == [.cancel("x")])
    }
}
