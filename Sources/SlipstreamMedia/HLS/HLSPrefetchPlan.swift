/// Which segments an HLS connection fetches ahead of the one it plays, and which of those it
/// races with a second connection. Pure: the connection tells what is coming and what is being
/// fetched; it gets actions back.
///
/// The segments after the one playing are fetched at once, several in parallel: up to
/// `segmentsAhead` of them, and no more than `lookahead` seconds of them (the player's buffer;
/// at least one). A fetch that has taken longer than its segment lasts is slower than the
/// stream and would run the player dry: it is raced by a second connection to the same segment
/// (once), the first to finish winning, as the downloader's end game races its stragglers.
/// Fetches of segments no longer coming (a live window that slid past them) are cancelled.
package enum HLSPrefetchPlan {
    /// A segment to come, in play order.
    package struct Upcoming: Hashable, Sendable {
        /// What names it (its URL and byte range).
        package var key: String
        /// Its duration in seconds.
        package var duration: Double
        /// It is the one playing: a fetch of it is kept (and raced), none is started.
        package var isPlaying = false

        package init(key: String, duration: Double, isPlaying: Bool = false) {
            self.key = key
            self.duration = duration
            self.isPlaying = isPlaying
        }
    }

    /// A fetch under way or done.
    package struct Fetch: Hashable, Sendable {
        /// When it started (seconds on a monotonic clock).
        package var started: Double
        /// A second connection races it.
        package var isRaced: Bool
        /// It ended (its bytes or its failure wait to be taken).
        package var isDone: Bool

        package init(started: Double, isRaced: Bool, isDone: Bool) {
            self.started = started
            self.isRaced = isRaced
            self.isDone = isDone
        }
    }

    /// What the connection does.
    package enum Action: Hashable, Sendable {
        /// Starts fetching this segment.
        case fetch(String)
        /// Fetches this segment again on a second connection, beside the first.
        case race(String)
        /// Cancels the fetch of this segment and forgets it.
        case cancel(String)
    }

    /// The actions at `now` for `upcoming` segments (the one playing, then the next, in order)
    /// and `fetches` (by key).
    package static func actions(
        upcoming: [Upcoming], fetches: [String: Fetch], now: Double, segmentsAhead: Int, lookahead: Double?
    ) -> [Action] {
        var actions: [Action] = []
        var ahead = 0.0
        for (index, segment) in upcoming.filter({ !$0.isPlaying }).enumerated() {
            guard index < segmentsAhead, index == 0 || lookahead.map({ ahead < $0 }) ?? true else { break }
            ahead += segment.duration
            if fetches[segment.key] == nil { actions.append(.fetch(segment.key)) }
        }
        let durations = Dictionary(upcoming.map { ($0.key, $0.duration) }, uniquingKeysWith: { first, _ in first })
        for (key, fetch) in fetches.sorted(by: { $0.value.started < $1.value.started }) {
            guard let duration = durations[key] else {
                actions.append(.cancel(key))
                continue
            }
            if !fetch.isDone, !fetch.isRaced, now - fetch.started > max(duration, minimumRaceDelay) { actions.append(.race(key)) }
        }
        return actions
    }

    /// The shortest a fetch runs before it is raced, in seconds (a playlist may claim segments
    /// of no length).
    package static let minimumRaceDelay = 0.5
}
