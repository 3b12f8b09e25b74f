/// The way through a media playlist as it is played: which segment comes next and when the
/// playlist is read again. A pure value: its owner loads the playlist, fetches the segments and
/// tells it the times (seconds on a monotonic clock); it never does I/O.
///
/// A playlist that has ended (VOD, or `EXT-X-ENDLIST`) is played from its first segment to its
/// last. A live one (RFC 8216, 6.3.3 and 6.3.4) starts at the segment three target durations
/// from its end; it is read again one target duration after it was last loaded when that load
/// changed it, half of one when it did not; segments are followed by their media sequence
/// numbers, none twice and none skipped unless it fell out of the window before its turn (then
/// the follower jumps to the first one still listed and counts the ones lost). A failed reload
/// is tried again after a backoff, never taken for the end; `EXT-X-ENDLIST` ends it.
package struct HLSMediaFollower: Hashable, Sendable {
    /// What the owner does next.
    package enum Step: Hashable, Sendable {
        /// Fetches and plays this segment.
        case fetch(HLSMediaPlaylist.Segment)
        /// Loads the playlist again at this time (now, or later: it waits until then).
        case reload(at: Double)
        /// Every segment was played: the stream ends.
        case end
    }

    /// The playlist last loaded.
    package private(set) var playlist: HLSMediaPlaylist?
    /// The media sequence number of the next segment to play.
    package private(set) var nextSequence: Int64?
    /// When the playlist is loaded again (live only).
    private var reloadTime: Double?
    /// Reloads that failed in a row.
    private var failedReloads = 0
    /// Segments that fell out of the window before their turn, since `takeSkipped()`.
    private var skipped: Int64 = 0

    /// The longest wait between failed reloads, in seconds.
    package static let maximumBackoff = 8.0

    /// A follower from the playlist's start (`start(of:)`), or from segment `sequence` (a seek).
    package init(startingAt sequence: Int64? = nil) {
        nextSequence = sequence
    }

    /// The playlist as loaded at `time`.
    package mutating func loaded(_ new: HLSMediaPlaylist, at time: Double) {
        let changed = new != playlist
        playlist = new
        failedReloads = 0
        if let next = nextSequence {
            if let first = new.segments.first?.sequence, next < first {
                skipped += first - next
                nextSequence = first
            }
        } else {
            nextSequence = Self.start(of: new)
        }
        let target = Self.targetSeconds(new)
        reloadTime = new.isLive ? time + (changed ? target : target / 2) : nil
    }

    /// Loading the playlist again failed at `time`: it is tried again after a backoff (a
    /// quarter of the target duration, doubled at each failure, up to `maximumBackoff`).
    package mutating func reloadFailed(at time: Double) {
        failedReloads += 1
        let target = playlist.map(Self.targetSeconds) ?? 1
        let exponent = Double(min(failedReloads - 1, 16))
        reloadTime = time + min(target / 4 * Double.pow2(exponent), max(Self.maximumBackoff, target))
    }

    /// What comes next at `time`: a reload that is due comes first, then the next segment
    /// listed, else the end (an ended playlist) or a reload.
    package mutating func next(at time: Double) -> Step {
        guard let playlist, let sequence = nextSequence else { return .reload(at: time) }
        if let reloadTime, reloadTime <= time { return .reload(at: reloadTime) }
        if let first = playlist.segments.first?.sequence, sequence >= first, sequence - first < playlist.segments.count {
            nextSequence = sequence + 1
            return .fetch(playlist.segments[Int(sequence - first)])
        }
        if !playlist.isLive { return .end }
        return .reload(at: reloadTime ?? time)
    }

    /// The count of segments that fell out of the window unplayed since the last call; resets it.
    package mutating func takeSkipped() -> Int64 {
        defer { skipped = 0 }
        return skipped
    }

    /// The first segment's sequence number: the playlist's first for an ended one, else the one
    /// that starts three target durations or more from the end (the first when it is shorter).
    package static func start(of playlist: HLSMediaPlaylist) -> Int64 {
        guard playlist.isLive else { return playlist.segments.first?.sequence ?? playlist.mediaSequence }
        let distance = 3 * Double(playlist.targetDuration)
        var fromEnd = 0.0
        for segment in playlist.segments.reversed() {
            fromEnd += segment.duration
            if fromEnd >= distance { return segment.sequence }
        }
        return playlist.segments.first?.sequence ?? playlist.mediaSequence
    }

    /// The target duration in seconds, at least one (a hostile 0 must not make a busy loop).
    private static func targetSeconds(_ playlist: HLSMediaPlaylist) -> Double {
        Double(max(playlist.targetDuration, 1))
    }
}

extension Double {
    /// 2 to the power `exponent`.
    fileprivate static func pow2(_ exponent: Double) -> Double {
        Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
