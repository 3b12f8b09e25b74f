import Testing
@testable import SlipstreamDownload

/// Which mirror new connections go to, and which gives connections up. Pure. A mirror under
/// half the fastest speed per connection gets none: it would make the download slower than
/// the fast mirror alone.
@Suite struct MirrorChoiceTests {
    typealias Source = MirrorChoice.Source

    /// Opens `count` connections one by one, as the download does.
    static func open(_ count: Int, on sources: [Source]) -> [Int] {
        var sources = sources
        for _ in 0..<count {
            guard let next = MirrorChoice.next(sources) else { break }
            sources[next].connections += 1
        }
        return sources.map(\.connections)
    }

    @Test func everyMirrorIsTriedBeforeAnyGetsASecondConnection() {
        // The first source holds the first request; nothing is measured yet.
        let sources = [Source(speed: nil, connections: 1), Source(speed: nil, connections: 0), Source(speed: nil, connections: 0)]
        #expect(MirrorChoice.next(sources) == 1)
        #expect(Self.open(2, on: sources) == [1, 1, 1])
        // Unmeasured, they share alike.
        #expect(Self.open(8, on: sources) == [3, 3, 3])
    }

    @Test(arguments: [
        ([20.0, 2.0], 8, [8, 0]),
        ([2.0, 20.0], 8, [0, 8]),
        ([10.0, 10.0], 8, [4, 4]),
        ([20.0, 12.0], 8, [5, 3]),
        // The third is under half the first: none for it, the others share by speed.
        ([30.0, 20.0, 10.0], 12, [7, 5, 0]),
    ])
    func connectionsFollowTheSpeedPerConnection(speeds: [Double], count: Int, expected: [Int]) {
        let sources = speeds.map { Source(speed: $0 * 1_048_576, connections: 0) }
        #expect(Self.open(count, on: sources) == expected)
    }

    @Test func aMirrorBeingMeasuredGetsNoSecondConnectionWhileAnotherIsMeasured() {
        let sources = [Source(speed: 8e6, connections: 2), Source(speed: 4e6, connections: 1), Source(speed: nil, connections: 1)]
        // The third one's connection will tell its speed; the others share by theirs (8 to 4).
        #expect(Self.open(5, on: sources) == [5, 3, 1])
    }

    @Test func droppedMirrorsGetNothing() {
        var sources = [Source(speed: 1e6, connections: 3), Source(speed: 50e6, connections: 0, usable: false)]
        #expect(Self.open(4, on: sources) == [7, 0])
        sources[0].usable = false
        #expect(MirrorChoice.next(sources) == nil)
    }

    @Test func aMuchSlowerMirrorGivesUpEveryConnection() {
        var sources = [Source(speed: 20e6, connections: 4), Source(speed: 2e6, connections: 4)]
        var moved = 0
        while let surplus = MirrorChoice.surplus(sources) {
            #expect(surplus == 1)
            sources[1].connections -= 1
            sources[MirrorChoice.next(sources)!].connections += 1
            moved += 1
        }
        #expect(moved == 4)
        #expect(sources.map(\.connections) == [8, 0])
    }

    @Test func closeSpeedsAndUnmeasuredMirrorsStayPut() {
        // Three quarters of the fastest speed: not worth a new request.
        #expect(MirrorChoice.surplus([Source(speed: 20e6, connections: 2), Source(speed: 15e6, connections: 6)]) == nil)
        // Not measured yet: no judgement.
        #expect(MirrorChoice.surplus([Source(speed: 20e6, connections: 4), Source(speed: nil, connections: 4)]) == nil)
        // A lone connection on a much slower mirror goes too.
        #expect(MirrorChoice.surplus([Source(speed: 100e6, connections: 7), Source(speed: 1e3, connections: 1)]) == 1)
        // A single source never gives anything up.
        #expect(MirrorChoice.surplus([Source(speed: 1e3, connections: 8)]) == nil)
    }
}
