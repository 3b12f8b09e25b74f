import Testing
@testable import SlipstreamAudio

/// A world for an `HLSFetchMachine` without I/O: playlists by URL and time, what each attempt
/// at a segment comes to, the receiver's pauses, on a simulated clock. It carries out the
/// machine's actions as `HLSConnection` would (a thread that blocks on its actions, transfers
/// and fetches ahead that end later and feed the machine from elsewhere), and checks at each
/// input what every input must keep.
struct HLSFetchDriver {
    typealias Machine = HLSFetchMachine

    /// A segment's attempt started: its sequence number, the attempt, and whether it came from a fetch ahead.
    struct Start: Hashable {
        var sequence: Int64
        var attempt: Int
        var prefetched: Bool
    }

    var machine: Machine
    /// The simulated clock, in seconds.
    var now = 0.0
    /// The playlist at a URL at a time; nil: its fetch fails.
    var playlist: (String, Double) -> HLSPlaylist?
    /// What attempt `n` at segment `sequence` comes to (every byte read, by default).
    var outcome: (_ sequence: Int64, _ attempt: Int) -> Machine.Outcome = { _, _ in .ended(delivered: 0) }
    /// The first timestamps of segments, by index (missing: none).
    var timestamps: [Int: Int64] = [:]
    /// How long a segment's transfer and a fetch ahead take.
    var transferTime = 0.1
    var prefetchTime: (String) -> Double = { _ in 0.1 }
    /// Deliveries by the thread still to be paused by the receiver (each resumed 0.05 s later).
    var pauses = 0

    /// What happened.
    private(set) var starts: [Start] = []
    private(set) var playlistFetches: [(url: String, time: Double)] = []
    private(set) var prefetches: [String] = []
    private(set) var answers: [AudioSourceAnswer] = []
    private(set) var delivered: [[UInt8]] = []
    private(set) var ending: Machine.Ending?
    private(set) var resumedSegments = 0

    /// Inputs fed later from other threads, by time (in order among equals).
    private var events: [(time: Double, input: Machine.Input, key: String?)] = []
    /// The thread's next input, and the time it waits until when it has none (nil: until signalled).
    private var next: Machine.Input?
    private var waitUntil: Double?
    private var wasWoken = false

    init(_ configuration: Machine.Configuration, playlist: @escaping (String, Double) -> HLSPlaylist?) {
        machine = Machine(configuration)
        self.playlist = playlist
    }

    /// Runs the thread until it ends or `steps` inputs were fed.
    mutating func run(steps: Int = 2000, interrupt: ((inout HLSFetchDriver) -> Void)? = nil) {
        feedThread(.start(at: now))
        for _ in 0..<steps where ending == nil {
            interrupt?(&self)
            if ending != nil { break }
            if let input = next.take() {
                feedThread(input)
                continue
            }
            if wasWoken {
                wasWoken = false
                feedThread(.tick(at: now))
                continue
            }
            if let index = events.indices.min(by: { events[$0].time < events[$1].time }),
                waitUntil.map({ events[index].time <= $0 }) ?? true
            {
                let event = events.remove(at: index)
                now = max(now, event.time)
                feedForeign(event.input)
                continue
            }
            guard let time = waitUntil else {
                Issue.record("the thread waits for a signal that never comes, in \(machine.phase)")
                return
            }
            now = max(now, time)
            feedThread(.tick(at: now))
        }
    }

    /// Feeds an input from another thread: only actions that return at once come back.
    mutating func feedForeign(_ input: Machine.Input) {
        let actions = machine.input(input)
        for action in actions {
            switch action {
            case .resumeSegment, .prefetch, .cancelPrefetch, .cancelTransfers, .wake: carryOut(action)
            default: Issue.record("\(input) from another thread gave the thread's \(action)")
            }
        }
    }

    /// Feeds an input from the thread: at most one action it waits on or ends with, last.
    mutating func feedThread(_ input: Machine.Input) {
        waitUntil = nil
        let actions = machine.input(input)
        let followUps = actions.indices.filter { Self.isFollowUp(actions[$0]) }
        #expect(followUps.count <= 1 && followUps.allSatisfy { $0 == actions.count - 1 }, "\(input) gave \(actions)")
        if followUps.isEmpty, !actions.isEmpty { #expect(actions.contains(.wake), "\(input) gave \(actions)") }
        if case .following(let following) = machine.phase {
            #expect(following.fetches.count <= Machine.segmentsAhead + 1)
            #expect(following.upcoming.count <= Machine.segmentsAhead + 1)
        }
        actions.forEach { carryOut($0) }
    }

    static func isFollowUp(_ action: Machine.Action) -> Bool {
        switch action {
        case .resumeSegment, .prefetch, .cancelPrefetch, .cancelTransfers, .wake: false
        default: true
        }
    }

    private mutating func carryOut(_ action: Machine.Action) {
        switch action {
        case .fetchPlaylist(let url):
            playlistFetches.append((url, now))
            next =
                playlist(url, now).map { .playlistLoaded($0, url: url, base: url, at: now) }
                ?? .playlistFailed(AudioStreamerError(.network, "unreachable"), at: now)
        case .readHead(let index, _):
            next = .headRead(index: index, timestamp: timestamps[index])
        case .open(let answer):
            answers.append(answer)
            next = .opened(at: now)
        case .readInitialization:
            next = .initializationRead([0x1], at: now)
        case .deliver(let bytes):
            if pauses > 0 {
                pauses -= 1
                events.append((now + 0.05, .resume, nil))
                next = .deliveryPaused
            } else {
                delivered.append(bytes)
                next = .delivered(at: now)
            }
        case .startSegment(let part, let attempt, _, let prefetched):
            #expect(attempt >= 1 && attempt <= Machine.segmentAttempts)
            starts.append(Start(sequence: part.segment.sequence, attempt: attempt, prefetched: prefetched))
            let input: Machine.Input =
                switch outcome(part.segment.sequence, attempt) {
                case .ended(let delivered): .segmentEnded(delivered: delivered)
                case .failed(let error, let retry, let delivered): .segmentFailed(error, retry: retry, delivered: delivered)
                }
            events.append((now + transferTime, input, "segment"))
            next = .segmentStarted(at: now)
        case .finishSegment:
            next = .tailRead([0x2], at: now)
        case .prefetch(let part):
            prefetches.append(part.key)
            events.append((now + prefetchTime(part.key), .prefetchEnded(key: part.key), part.key))
        case .cancelPrefetch(let key):
            events.removeAll { $0.key == key }
        case .cancelTransfers:
            events.removeAll { $0.key != nil }
        case .resumeSegment:
            resumedSegments += 1
        case .wake:
            wasWoken = true
        case .wait(let time):
            waitUntil = time
        case .end(let ending):
            #expect(self.ending == nil)
            self.ending = ending
        }
    }

    /// A media playlist of `count` segments of `duration` seconds from `sequence` on (the one at
    /// `mapAt` and those after it with an initialization section).
    static func media(
        from sequence: Int64 = 0, count: Int, duration: Double = 4, target: Int64 = 4, kind: HLSMediaPlaylist.Kind? = .vod,
        ended: Bool = false, mapAt: Int? = nil
    ) -> HLSMediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n#EXT-X-MEDIA-SEQUENCE:\(sequence)\n"
        switch kind {
        case .vod: text += "#EXT-X-PLAYLIST-TYPE:VOD\n"
        case .event: text += "#EXT-X-PLAYLIST-TYPE:EVENT\n"
        default: break
        }
        for index in 0..<count {
            if index == mapAt { text += "#EXT-X-MAP:URI=\"init.mp4\"\n" }
            text += "#EXTINF:\(duration),\ns\(sequence + Int64(index)).ts\n"
        }
        if ended { text += "#EXT-X-ENDLIST\n" }
        guard case .media(let media) = try? HLSPlaylistParser.parse(Array(text.utf8)) else { preconditionFailure(text) }
        return media
    }

    /// The URL every test's playlist is at.
    static let url = "http://host/list.m3u8"
}
