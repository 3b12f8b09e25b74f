import Dispatch

/// Fetching ahead: the segments to come (the one playing first), the plan's actions carried out
/// (`HLSPrefetchPlan`, `HLSPrefetcher`), and a segment's bytes taken once fetched.
extension HLSConnection {
    /// `segment` (about to play) and the segments of `playlist` after it become the ones to come.
    func planAhead(after segment: HLSMediaPlaylist.Segment, in playlist: HLSMediaPlaylist, base: String) throws(Ending) {
        let url = try resolve(segment.uri, base: base)
        upcoming = [
            (
                HLSPrefetchPlan.Upcoming(key: Self.fetchName(url, segment.byteRange), duration: segment.duration, isPlaying: true), url,
                segment.byteRange
            )
        ]
        for next in playlist.segments where next.sequence > segment.sequence {
            let url = try resolve(next.uri, base: base)
            upcoming.append(
                (HLSPrefetchPlan.Upcoming(key: Self.fetchName(url, next.byteRange), duration: next.duration), url, next.byteRange))
            if upcoming.count > Self.segmentsAhead { break }
        }
        prefetchAhead()
    }

    /// Starts, races and cancels the fetches ahead as `HLSPrefetchPlan` says now.
    func prefetchAhead() {
        let now = Self.now()
        let actions = HLSPrefetchPlan.actions(
            upcoming: upcoming.map(\.plan), fetches: prefetcher.fetches, now: now, segmentsAhead: Self.segmentsAhead,
            lookahead: setup.lookahead)
        for action in actions {
            switch action {
            case .fetch(let key), .race(let key):
                guard let segment = upcoming.first(where: { $0.plan.key == key }) else { continue }
                prefetcher.fetch(key, url: segment.url, range: segment.range, now: now)
            case .cancel(let key):
                prefetcher.cancel(key)
            }
        }
    }

    /// What names a segment's fetch: its URL and where its range starts.
    static func fetchName(_ url: String, _ range: HLSMediaPlaylist.ByteRange?) -> String {
        "\(range?.offset ?? 0) \(url)"
    }

    /// The bytes of `url` (`range` of it) fetched ahead, once that fetch ended (racing it when
    /// it is slow); nil when it was not fetched ahead or failed (the segment is then streamed).
    func prefetched(_ url: String, range: HLSMediaPlaylist.ByteRange?) throws(Ending) -> [UInt8]? {
        let key = Self.fetchName(url, range)
        guard prefetcher.has(key) else { return nil }
        while true {
            if let result = prefetcher.take(key) { return try? result.get() }
            prefetchAhead()
            try waitTick()
        }
    }

    /// Waits for a signal, or `prefetchTick` while a fetch ahead may yet need racing; throws
    /// when cancelled.
    func waitTick() throws(Ending) {
        if shared.withLock({ $0.isCancelled }) { throw .stopped }
        if prefetcher.fetches.values.contains(where: { !$0.isDone && !$0.isRaced }) {
            _ = wake.wait(timeout: .now() + Self.prefetchTick)
        } else {
            wake.wait()
        }
    }
}
