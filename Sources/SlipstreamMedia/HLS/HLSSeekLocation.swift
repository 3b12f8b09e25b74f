/// Where a time falls in a VOD or EVENT media playlist: the segment that holds it and when that
/// segment starts. Pure: the caller reads the segments' timestamps.
///
/// The durations (`EXTINF`) give each segment's start as the sum of those before it (RFC 8216,
/// 3): an estimate, as exact as the playlist writes them. Where the segments carry timestamps
/// (a transport stream's PTS, packed audio's ID3 timestamp), a segment's start is its first
/// timestamp less the first segment's, exact to the tick; a segment found to start after the
/// time (durations written short, or rounded) gives way to the one before it.
package enum HLSSeekLocation {
    /// The segment to play from.
    package struct Found: Hashable, Sendable {
        /// Its index in the playlist's segments.
        package var index: Int
        /// Its start, in seconds from the first segment's.
        package var start: Double
        /// Whether `start` comes from timestamps (exact) or from the durations (an estimate).
        package var isExact: Bool
    }

    /// Ticks per second of the timestamps.
    package static let clockRate = 90_000.0
    /// The most segments stepped back from the durations' answer.
    package static let maximumStepsBack = 8

    /// The segment of `playlist` holding `time` (seconds from its first segment's start; earlier
    /// times give the first segment, later ones the last); nil when it has none. `timestamp(i)`
    /// is the first timestamp (90 kHz) of segment `i`, nil where it has none: asked for the
    /// first segment, then for the one found and, while it starts after `time`, the ones before.
    package static func locate<Failure: Error>(
        _ time: Double, in playlist: HLSMediaPlaylist, timestamp: (Int) throws(Failure) -> Int64?
    ) throws(Failure) -> Found? {
        let segments = playlist.segments
        guard !segments.isEmpty else { return nil }
        var index = 0
        var start = 0.0
        while index + 1 < segments.count, start + segments[index].duration <= time {
            start += segments[index].duration
            index += 1
        }
        guard let base = try timestamp(0) else { return Found(index: index, start: start, isExact: false) }
        var steps = 0
        while true {
            guard index > 0 else { return Found(index: 0, start: 0, isExact: true) }
            guard let first = try timestamp(index) else { return Found(index: index, start: start, isExact: false) }
            let exact = seconds(from: base, to: first)
            if exact <= time || steps == maximumStepsBack { return Found(index: index, start: exact, isExact: true) }
            index -= 1
            start -= segments[index].duration
            steps += 1
        }
    }

    /// The seconds from timestamp `base` to `timestamp` (33 bits, wrapping).
    package static func seconds(from base: Int64, to timestamp: Int64) -> Double {
        Double((timestamp &- base) & 0x1_FFFF_FFFF) / clockRate
    }
}
