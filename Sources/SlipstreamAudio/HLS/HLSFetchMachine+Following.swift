/// Following the playlist: the next step as `HLSMediaFollower` says, each segment played
/// (initialization section first, bytes fetched ahead or streamed, retried after a backoff),
/// the fetches ahead planned at each tick (`HLSPrefetchPlan`), the thread's own deliveries held
/// while the receiver pauses them.
extension HLSFetchMachine {
    /// An input from the thread while following.
    mutating func follow(_ following: Following, _ input: Input) -> [Action] {
        var following = following
        switch (following.step, input) {
        case (_, .tick(let now)):
            return tick(following, at: now)
        case (.reloading, .playlistLoaded(.media(let media), _, let base, let now)):
            following.media.playlist = media
            following.media.base = base
            following.follower.loaded(media, at: now)
            return advance(following, at: now)
        case (.reloading, .playlistLoaded(_, _, _, let now)), (.reloading, .playlistFailed(_, let now)):
            // A live playlist that could not be read now (or became a master one) may be read
            // later: never the end.
            following.follower.reloadFailed(at: now)
            return advance(following, at: now)
        case (.initializing(let part, let map), .initializationRead(let bytes, let now)):
            return deliver(bytes, then: .segment(part, map: map), following, at: now)
        case (.delivering(_, let then, .inFlight), .delivered(let now)):
            return delivered(then, following, at: now)
        case (.delivering(let bytes, let then, .inFlight(let resumed)), .deliveryPaused):
            following.step = .delivering(bytes, then: then, resumed ? .inFlight(resumed: false) : .paused)
            phase = .following(following)
            return resumed ? [.deliver(bytes)] : [.wait(until: nil)]
        case (.streaming(let part, let attempt, .starting(let resumePending)), .segmentStarted(let now)):
            following.step = .streaming(part, attempt: attempt, .running)
            phase = .following(following)
            return (resumePending ? [.resumeSegment] : []) + [.wait(until: Self.tickTime(following, at: now))]
        case (.streaming(_, _, .over), .segmentStarted):
            // It ended before it was known: the thread was woken to look at how.
            return [.wait(until: nil)]
        case (.finishing, .tailRead(let bytes, let now)):
            return deliver(bytes, then: .next, following, at: now)
        default:
            preconditionFailure("HLSFetchMachine: \(input) in \(following.step)")
        }
    }

    /// The thread woke at `now`.
    private mutating func tick(_ following: Following, at now: Double) -> [Action] {
        var following = following
        switch following.step {
        case .choosing:
            return advance(following, at: now)
        case .waitingReload(let time) where now < time:
            return [.wait(until: time)]
        case .waitingReload:
            following.step = .reloading
            phase = .following(following)
            return [.fetchPlaylist(following.media.url)]
        case .delivering(let bytes, let then, .ready):
            following.step = .delivering(bytes, then: then, .inFlight(resumed: false))
            phase = .following(following)
            return [.deliver(bytes)]
        case .delivering(_, _, .paused):
            return [.wait(until: nil)]
        case .waitingPrefetch(let part):
            guard let fetch = following.fetches[part.key], !fetch.isDone else {
                return start(part, attempt: 1, delivered: 0, following)
            }
            let actions = plan(&following, at: now)
            phase = .following(following)
            return actions + [.wait(until: Self.tickTime(following, at: now))]
        case .streaming(let part, let attempt, .over(let outcome)):
            return segment(part, attempt: attempt, outcome, following, at: now)
        case .streaming:
            let actions = plan(&following, at: now)
            phase = .following(following)
            return actions + [.wait(until: Self.tickTime(following, at: now))]
        case .backingOff(_, _, _, let time) where now < time:
            return [.wait(until: time)]
        case .backingOff(let part, let attempt, let delivered, _):
            return start(part, attempt: attempt + 1, delivered: delivered, following)
        case .reloading, .initializing, .delivering(_, _, .inFlight), .finishing:
            preconditionFailure("HLSFetchMachine: a tick while the thread is busy (\(following.step))")
        }
    }

    /// What comes next, as the follower says at `now`.
    mutating func advance(_ following: Following, at now: Double) -> [Action] {
        var following = following
        following.step = .choosing
        switch following.follower.next(at: now) {
        case .fetch(let segment):
            let url: String
            switch Self.resolve(segment.uri, base: following.media.base) {
            case .failure(let error): return end(.failed(error))
            case .success(let resolved): url = resolved
            }
            let part = Part(segment: segment, url: url, base: following.media.base)
            guard let map = segment.map, map != following.map else { return begin(part, following, at: now) }
            following.step = .initializing(part, map)
            phase = .following(following)
            return [.readInitialization(map, of: part)]
        case .reload(let time) where time > now:
            following.step = .waitingReload(at: time)
            phase = .following(following)
            return [.wait(until: time)]
        case .reload:
            following.step = .reloading
            phase = .following(following)
            return [.fetchPlaylist(following.media.url)]
        case .end:
            return end(.finished)
        }
    }

    /// `part` is about to play: it and the segments after it become the ones to come, the
    /// fetches ahead are planned, and it starts (once its own fetch ahead ended, if it has one).
    private mutating func begin(_ part: Part, _ following: Following, at now: Double) -> [Action] {
        var following = following
        following.upcoming = [part]
        for next in following.media.playlist.segments where next.sequence > part.segment.sequence {
            switch Self.resolve(next.uri, base: following.media.base) {
            case .failure(let error): return end(.failed(error))
            case .success(let url): following.upcoming.append(Part(segment: next, url: url, base: following.media.base))
            }
            if following.upcoming.count > Self.segmentsAhead { break }
        }
        let actions = plan(&following, at: now)
        guard let fetch = following.fetches[part.key], !fetch.isDone else {
            return actions + start(part, attempt: 1, delivered: 0, following)
        }
        following.step = .waitingPrefetch(part)
        phase = .following(following)
        return actions + [.wait(until: Self.tickTime(following, at: now))]
    }

    /// Starts attempt `attempt` at `part`: from its fetch ahead, when it has one (taken).
    private mutating func start(_ part: Part, attempt: Int, delivered: Int, _ following: Following) -> [Action] {
        var following = following
        let prefetched = following.fetches.removeValue(forKey: part.key) != nil
        following.step = .streaming(part, attempt: attempt, .starting(resumePending: false))
        phase = .following(following)
        return [.startSegment(part, attempt: attempt, delivered: delivered, prefetched: prefetched)]
    }

    /// Attempt `attempt` at `part` is over, as `outcome` says: its last bytes are read, or it is
    /// tried again after a backoff, skipped (live) or the end (with its error).
    private mutating func segment(_ part: Part, attempt: Int, _ outcome: Outcome, _ following: Following, at now: Double)
        -> [Action]
    {
        var following = following
        switch outcome {
        case .ended:
            following.step = .finishing(part)
            phase = .following(following)
            return [.finishSegment(part)]
        case .failed(_, let retry, let delivered) where retry && attempt < Self.segmentAttempts:
            let time = now + Self.segmentBackoff * Double(1 << (attempt - 1))
            following.step = .backingOff(part, attempt: attempt, delivered: delivered, until: time)
            phase = .following(following)
            return [.wait(until: time)]
        case .failed(_, true, _) where following.media.playlist.isLive:
            // A live stream goes on with the next segment.
            return advance(following, at: now)
        case .failed(var failure, let retry, _):
            failure.message = "the HLS segment \(part.url) failed" + (retry ? " \(attempt) times" : "") + ": \(failure.message)"
            failure.isRetryable = false
            return end(.failed(failure))
        }
    }

    /// Gives `bytes` to the receiver from the thread, then goes on as `then` says.
    private mutating func deliver(_ bytes: [UInt8], then: AfterDelivery, _ following: Following, at now: Double) -> [Action] {
        guard !bytes.isEmpty else { return delivered(then, following, at: now) }
        var following = following
        following.step = .delivering(bytes, then: then, .inFlight(resumed: false))
        phase = .following(following)
        return [.deliver(bytes)]
    }

    /// The thread's delivery was taken.
    private mutating func delivered(_ then: AfterDelivery, _ following: Following, at now: Double) -> [Action] {
        var following = following
        switch then {
        case .segment(let part, let map):
            following.map = map
            return begin(part, following, at: now)
        case .next:
            return advance(following, at: now)
        }
    }

    /// The fetches ahead to start, race and cancel at `now` (`HLSPrefetchPlan`), noted in `following`.
    private func plan(_ following: inout Following, at now: Double) -> [Action] {
        let upcoming = following.upcoming.enumerated().map { index, part in
            HLSPrefetchPlan.Upcoming(key: part.key, duration: part.segment.duration, isPlaying: index == 0)
        }
        let planned = HLSPrefetchPlan.actions(
            upcoming: upcoming, fetches: following.fetches, now: now, segmentsAhead: Self.segmentsAhead,
            lookahead: configuration.lookahead)
        var actions: [Action] = []
        for action in planned {
            switch action {
            case .fetch(let key), .race(let key):
                guard let part = following.upcoming.first(where: { $0.key == key }) else { continue }
                if following.fetches[key] == nil {
                    following.fetches[key] = HLSPrefetchPlan.Fetch(started: now, isRaced: false, isDone: false)
                } else {
                    following.fetches[key]?.isRaced = true
                }
                actions.append(.prefetch(part))
            case .cancel(let key):
                following.fetches[key] = nil
                actions.append(.cancelPrefetch(key))
            }
        }
        return actions
    }

    /// When the thread looks at the fetches ahead again: a tick later while one may yet need
    /// racing, else only when signalled (nil).
    private static func tickTime(_ following: Following, at now: Double) -> Double? {
        following.fetches.values.contains(where: { !$0.isDone && !$0.isRaced }) ? now + prefetchTick : nil
    }
}
