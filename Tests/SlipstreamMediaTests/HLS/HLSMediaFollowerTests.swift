import Testing
@testable import SlipstreamMedia

/// The follower without I/O: the order of segments, where a live stream starts, when the
/// playlist is read again, the window sliding past, failed reloads and the end.
struct HLSMediaFollowerTests {
    /// A playlist of `count` segments of `duration` seconds from `sequence` on.
    static func playlist(
        from sequence: Int64, count: Int, duration: Double = 2, target: Int64 = 2, ended: Bool = false, kind: HLSMediaPlaylist.Kind? = nil
    ) -> HLSMediaPlaylist {
        var playlist = HLSMediaPlaylist(targetDuration: target, mediaSequence: sequence, kind: kind, hasEnded: ended)
        playlist.segments = (0..<count).map { index in
            let number = sequence + Int64(index)
            return .init(
                uri: "s\(number).ts", duration: duration, title: nil, sequence: number, discontinuitySequence: 0,
                isDiscontinuity: false, byteRange: nil, key: nil, map: nil)
        }
        return playlist
    }

    /// The URIs fetched until the follower asks for something else; and that step.
    static func fetches(_ follower: inout HLSMediaFollower, at time: Double) -> ([String], HLSMediaFollower.Step) {
        var uris: [String] = []
        while true {
            let step = follower.next(at: time)
            guard case .fetch(let segment) = step else { return (uris, step) }
            uris.append(segment.uri)
        }
    }

    @Test func aRecordedPlaylistIsPlayedWholeThenEnds() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 5, count: 3, kind: .vod), at: 0)
        let (uris, step) = Self.fetches(&follower, at: 1000)
        #expect(uris == ["s5.ts", "s6.ts", "s7.ts"])
        #expect(step == .end)
        var ended = HLSMediaFollower()
        ended.loaded(Self.playlist(from: 0, count: 2, ended: true), at: 0)
        #expect(Self.fetches(&ended, at: 0) == (["s0.ts", "s1.ts"], .end))
    }

    @Test func aLiveStreamStartsThreeTargetDurationsFromItsEnd() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 100, count: 10), at: 50)
        #expect(Self.fetches(&follower, at: 50) == (["s107.ts", "s108.ts", "s109.ts"], .reload(at: 52)))
        // Shorter than three target durations: from its first segment.
        var short = HLSMediaFollower()
        short.loaded(Self.playlist(from: 0, count: 2, duration: 2, target: 2), at: 0)
        #expect(Self.fetches(&short, at: 0).0 == ["s0.ts", "s1.ts"])
        // Uneven durations: the segment that starts at least three target durations from the end.
        var uneven = Self.playlist(from: 0, count: 4, target: 4)
        for (index, duration) in [5.0, 4, 4.5, 4].enumerated() { uneven.segments[index].duration = duration }
        #expect(HLSMediaFollower.start(of: uneven) == 1)
    }

    @Test func aReloadComesOneTargetDurationAfterAChangeHalfOfOneAfterNone() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 3), at: 100)
        #expect(Self.fetches(&follower, at: 100).1 == .reload(at: 102))
        // Not due yet: the owner waits until then.
        #expect(follower.next(at: 101) == .reload(at: 102))
        follower.loaded(Self.playlist(from: 0, count: 3), at: 102)
        #expect(Self.fetches(&follower, at: 102) == ([], .reload(at: 103)))
        follower.loaded(Self.playlist(from: 0, count: 4), at: 103)
        #expect(Self.fetches(&follower, at: 103) == (["s3.ts"], .reload(at: 105)))
    }

    @Test func aDueReloadComesBeforeTheNextSegment() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 3), at: 0)
        #expect(follower.next(at: 0) == .fetch(Self.playlist(from: 0, count: 3).segments[0]))
        #expect(follower.next(at: 5) == .reload(at: 2))
        follower.loaded(Self.playlist(from: 0, count: 3), at: 5)
        #expect(Self.fetches(&follower, at: 5).0 == ["s1.ts", "s2.ts"])
    }

    @Test func segmentsAreFollowedByNumberNoneTwiceNoneSkippedUnlessTheyFellOut() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 3), at: 0)
        #expect(Self.fetches(&follower, at: 0).0 == ["s0.ts", "s1.ts", "s2.ts"])
        // The window slid by two: one new segment.
        follower.loaded(Self.playlist(from: 2, count: 2), at: 2)
        #expect(Self.fetches(&follower, at: 2).0 == ["s3.ts"])
        #expect(follower.takeSkipped() == 0)
        // It slid past segments never played: the follower jumps to the first one listed.
        follower.loaded(Self.playlist(from: 7, count: 3), at: 4)
        #expect(follower.takeSkipped() == 3)
        #expect(follower.takeSkipped() == 0)
        #expect(Self.fetches(&follower, at: 4).0 == ["s7.ts", "s8.ts", "s9.ts"])
    }

    @Test func theEndListEndsALiveStreamAfterItsLastSegment() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 2), at: 0)
        _ = Self.fetches(&follower, at: 0)
        follower.loaded(Self.playlist(from: 0, count: 4, ended: true), at: 2)
        #expect(Self.fetches(&follower, at: 2) == (["s2.ts", "s3.ts"], .end))
    }

    @Test func aFailedReloadIsTriedAgainWithBackoffNeverTakenForTheEnd() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 1, target: 4), at: 0)
        _ = Self.fetches(&follower, at: 0)
        var times: [Double] = []
        var now = 4.0
        for _ in 0..<6 {
            follower.reloadFailed(at: now)
            guard case .reload(let time) = follower.next(at: now) else { Issue.record("no reload"); return }
            times.append(time - now)
            now = time
        }
        #expect(times == [1, 2, 4, 8, 8, 8])
        // A good load resets the backoff.
        follower.loaded(Self.playlist(from: 0, count: 2, target: 4), at: now)
        #expect(Self.fetches(&follower, at: now) == (["s1.ts"], .reload(at: now + 4)))
        follower.reloadFailed(at: now + 4)
        #expect(follower.next(at: now + 4) == .reload(at: now + 5))
    }

    @Test func aTargetDurationOfZeroMakesNoBusyLoop() {
        var follower = HLSMediaFollower()
        follower.loaded(Self.playlist(from: 0, count: 1, target: 0), at: 0)
        #expect(Self.fetches(&follower, at: 0).1 == .reload(at: 1))
    }
}
