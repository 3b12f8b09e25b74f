import Testing
@testable import SlipstreamMedia

/// Where a time falls in a media playlist, without I/O: by the durations, made exact by the
/// segments' timestamps (stepping back where a segment starts after the time), wrapping at 33 bits.
struct HLSSeekLocationTests {
    /// A VOD playlist of segments lasting `durations` seconds.
    static func playlist(_ durations: [Double]) -> HLSMediaPlaylist {
        var playlist = HLSMediaPlaylist(targetDuration: 2, mediaSequence: 10, kind: .vod, hasEnded: true)
        playlist.segments = durations.enumerated().map { index, duration in
            HLSMediaPlaylist.Segment(
                uri: "s\(index).ts", duration: duration, sequence: 10 + Int64(index), discontinuitySequence: 0,
                isDiscontinuity: false)
        }
        return playlist
    }

    /// Locates `time`, the timestamps given by `timestamps` (by index); the segments asked for.
    static func locate(_ time: Double, _ playlist: HLSMediaPlaylist, _ timestamps: [Int64?]) -> (HLSSeekLocation.Found?, [Int]) {
        var asked: [Int] = []
        let found = HLSSeekLocation.locate(time, in: playlist) { index in
            asked.append(index)
            return timestamps[index]
        }
        return (found, asked)
    }

    @Test func withoutTimestampsTheDurationsSay() {
        let playlist = Self.playlist([2, 2, 2, 1])
        let none: [Int64?] = [nil, nil, nil, nil]
        #expect(Self.locate(0, playlist, none).0 == .init(index: 0, start: 0, isExact: false))
        #expect(Self.locate(3.3, playlist, none).0 == .init(index: 1, start: 2, isExact: false))
        #expect(Self.locate(4, playlist, none).0 == .init(index: 2, start: 4, isExact: false))
        // Before the start: the first; past the end: the last.
        #expect(Self.locate(-1, playlist, none).0?.index == 0)
        #expect(Self.locate(60, playlist, none).0 == .init(index: 3, start: 6, isExact: false))
        // Only the first segment's timestamp is asked for: without it nothing is exact.
        #expect(Self.locate(3.3, playlist, none).1 == [0])
        #expect(Self.locate(3.3, Self.playlist([]), none).0 == nil)
    }

    @Test func timestampsMakeTheStartExact() {
        // Durations written to the millisecond; the segments really start 1024-sample frames apart.
        let playlist = Self.playlist([2.003, 2.003, 2.003, 1])
        let base: Int64 = 126_000
        let starts: [Int64?] = [base, base + 180_576, base + 361_152, base + 541_728]
        let (found, asked) = Self.locate(3.3, playlist, starts)
        #expect(found == .init(index: 1, start: 180_576.0 / 90_000, isExact: true))
        #expect(asked == [0, 1])
        #expect(Self.locate(1, playlist, starts).0 == .init(index: 0, start: 0, isExact: true))
    }

    @Test func aSegmentThatStartsAfterTheTimeGivesWayToTheOneBefore() {
        // Durations rounded down: by them 4.05 s is in the third segment, which starts at 4.2 s.
        let playlist = Self.playlist([2, 2, 2, 2])
        let starts: [Int64?] = [0, 189_000, 378_000, 567_000]
        let (found, asked) = Self.locate(4.05, playlist, starts)
        #expect(found == .init(index: 1, start: 2.1, isExact: true))
        #expect(asked == [0, 2, 1])
    }

    @Test func timestampsWrapAt33Bits() {
        let playlist = Self.playlist([2, 2])
        let base: Int64 = (1 << 33) - 90_000
        let (found, _) = Self.locate(2.5, playlist, [base, 90_000])
        #expect(found == .init(index: 1, start: 2, isExact: true))
    }

    @Test func aSegmentWithoutATimestampIsPlacedByTheDurations() {
        let playlist = Self.playlist([2, 2, 2])
        #expect(Self.locate(4.5, playlist, [0, 180_000, nil]).0 == .init(index: 2, start: 4, isExact: false))
    }
}
