import SlipstreamCore
import Testing
@testable import SlipstreamAudio

/// The HLS connection's machine alone, run by `HLSFetchDriver` on a simulated clock: reloads a
/// target duration apart, retries then giving up, fetches ahead and races, pauses, seeks, the
/// live edge, the end list, stop in every state, and seeded random runs that keep every invariant.
struct HLSFetchMachineTests {
    typealias Machine = HLSFetchMachine
    typealias Driver = HLSFetchDriver
    static let url = Driver.url
    static let lost = AudioStreamerError(.network, "connection lost")

    static func driver(
        time: Double? = nil, lookahead: Double? = nil, _ playlist: @escaping (String, Double) -> HLSPlaylist?
    ) -> Driver {
        Driver(Machine.Configuration(url: url, lookahead: lookahead, time: time, offset: 777), playlist: playlist)
    }

    @Test func aRecordedPlaylistPlaysEachSegmentOnceInOrderThenEnds() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 5)) }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.starts.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(driver.starts.allSatisfy { $0.attempt == 1 })
        #expect(driver.playlistFetches.count == 1)
        #expect(driver.answers.map(\.isLive) == [false])
        #expect(driver.answers.first?.duration == 20)
        // Every segment's last bytes were given by the thread.
        #expect(driver.delivered.count == 5)
    }

    @Test func segmentsAfterTheOnePlayingAreFetchedAheadAndPlayedFromThere() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 6)) }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.starts.first?.prefetched == false)
        #expect(driver.starts.dropFirst().allSatisfy { $0.prefetched })
        #expect(Set(driver.prefetches).count == 5)
    }

    @Test func aLookaheadOfOneSegmentFetchesOneAhead() {
        var driver = Self.driver(lookahead: 1) { _, _ in .media(Driver.media(count: 4)) }
        var most = 0
        driver.run { driver in
            if case .following(let following) = driver.machine.phase { most = max(most, following.fetches.count) }
        }
        #expect(driver.ending == .finished)
        #expect(most == 1)
    }

    @Test func aFetchAheadSlowerThanItsSegmentIsRacedOnce() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 3, duration: 1)) }
        driver.prefetchTime = { key in key.hasSuffix("s1.ts") ? 5 : 0.1 }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.prefetches.filter { $0.hasSuffix("s1.ts") }.count == 2)
        #expect(driver.prefetches.filter { $0.hasSuffix("s2.ts") }.count == 1)
    }

    @Test func aFailingSegmentIsTriedAgainAfterADoublingBackoffThenEndsTheStream() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 3)) }
        driver.transferTime = 0
        driver.outcome = { sequence, _ in sequence == 1 ? .failed(Self.lost, retry: true, delivered: 10) : .ended(delivered: 0) }
        var waits: [Double] = []
        driver.run { driver in
            if case .following(let following) = driver.machine.phase, case .backingOff(_, _, _, let until) = following.step {
                if waits.last != until { waits.append(until) }
            }
        }
        #expect(driver.starts.filter { $0.sequence == 1 }.map(\.attempt) == [1, 2, 3, 4])
        #expect(zip(waits.dropFirst(), waits).map { $0 - $1 } == [0.5, 1.0])
        guard case .failed(let error) = driver.ending else {
            Issue.record("ended \(String(describing: driver.ending))")
            return
        }
        #expect(error.message.contains("\(Machine.segmentAttempts) times"))
        #expect(error.message.contains("s1.ts"))
        #expect(!error.isRetryable)
        #expect(!driver.starts.contains { $0.sequence == 2 })
    }

    @Test func aFailureThatTryingAgainCannotMendEndsAtOnce() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 3)) }
        driver.outcome = { sequence, _ in sequence == 0 ? .failed(Self.lost, retry: false, delivered: 0) : .ended(delivered: 0) }
        driver.run()
        #expect(driver.starts.map(\.attempt) == [1])
        guard case .failed(let error) = driver.ending else { return #expect(Bool(false)) }
        #expect(!error.message.contains("times"))
    }

    @Test func aLiveStreamGoesOnWithTheNextSegmentAfterTheRetries() {
        var driver = Self.driver { _, time in .media(Driver.media(count: 4, kind: nil, ended: time > 1)) }
        driver.outcome = { sequence, _ in sequence == 1 ? .failed(Self.lost, retry: true, delivered: 0) : .ended(delivered: 0) }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.starts.filter { $0.sequence == 1 }.count == Machine.segmentAttempts)
        #expect(driver.starts.contains { $0.sequence == 2 })
    }

    @Test func aRetryGivesTheAudioBytesEarlierAttemptsGave() {
        var machine = Self.following(Driver.media(count: 2))
        let part = Self.streamingPart(machine)
        #expect(machine.input(.segmentFailed(Self.lost, retry: true, delivered: 1234)) == [.wake])
        #expect(machine.input(.tick(at: 1)) == [.wait(until: 1 + Machine.segmentBackoff)])
        #expect(machine.input(.tick(at: 2)) == [.startSegment(part, attempt: 2, delivered: 1234, prefetched: false)])
    }

    @Test func aLivePlaylistIsReloadedATargetDurationAfterAChangeAndHalfOneAfterNone() {
        // Target 4 s: changed at each load until 10 s, the same after.
        var driver = Self.driver { _, time in
            let count = min(Int(time / 4) + 5, 7)
            return .media(Driver.media(count: count, kind: nil, ended: time >= 30))
        }
        driver.transferTime = 0
        driver.run()
        #expect(driver.ending == .finished)
        let times = driver.playlistFetches.map(\.time)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.prefix(2).allSatisfy { abs($0 - 4) < 0.5 }, "\(gaps)")
        #expect(gaps.suffix(3).allSatisfy { abs($0 - 2) < 0.5 }, "\(gaps)")
    }

    @Test func aLiveStreamStartsThreeTargetDurationsFromItsEnd() {
        var driver = Self.driver { _, time in .media(Driver.media(from: 100, count: 10, kind: nil, ended: time > 0)) }
        driver.run()
        #expect(driver.starts.first?.sequence == 107)
        #expect(driver.answers.first?.isLive == true)
        #expect(driver.answers.first?.seeksByTime == false)
    }

    @Test func aFailedReloadIsTriedAgainNeverTakenForTheEnd() {
        var loads = 0
        var driver = Self.driver { _, time in
            loads += 1
            if loads == 2 || loads == 3 { return nil }
            return .media(Driver.media(count: 2, kind: nil, ended: loads > 3))
        }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.playlistFetches.count == 4)
    }

    @Test func aLiveStreamThatGainsItsEndListEndsAfterItsLastSegment() {
        var driver = Self.driver { _, time in .media(Driver.media(count: time < 10 ? 3 : 5, kind: nil, ended: time >= 10)) }
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.starts.map(\.sequence).last == 4)
    }

    @Test func aMasterPlaylistIsFollowedToItsVariant() throws {
        let master = try HLSPlaylistParser.parse(
            Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nlow/list.m3u8\n".utf8))
        var driver = Self.driver { url, _ in url == Self.url ? master : .media(Driver.media(count: 1)) }
        driver.run()
        #expect(driver.playlistFetches.map(\.url) == [Self.url, "http://host/low/list.m3u8"])
        #expect(driver.ending == .finished)
        var looping = Self.driver { _, _ in master }
        looping.run()
        guard case .failed(let error) = looping.ending else { return #expect(Bool(false)) }
        #expect(error.message.contains("master playlist too"))
    }

    @Test func aFirstLoadThatFailsEndsWithItsError() {
        var driver = Self.driver { _, _ in nil }
        driver.run()
        #expect(driver.ending == .failed(AudioStreamerError(.network, "unreachable")))
        #expect(driver.answers.isEmpty)
    }

    @Test func aTimeIsFoundByTheSegmentsTimestampsAndTold() {
        // Segments of 4 s by the durations; by the timestamps the third starts at 8.5 s.
        var driver = Self.driver(time: 9) { _, _ in .media(Driver.media(count: 5)) }
        driver.timestamps = [0: 90_000, 2: 90_000 + 765_000]
        driver.run()
        #expect(driver.answers.first?.startTime == .init(seconds: 8.5, isExact: true))
        #expect(driver.answers.first?.offset == 777)
        #expect(driver.starts.first?.sequence == 2)
    }

    @Test func aTimeInSegmentsWithoutTimestampsIsEstimatedByTheDurations() {
        var driver = Self.driver(time: 13) { _, _ in .media(Driver.media(count: 5)) }
        driver.run()
        #expect(driver.answers.first?.startTime == .init(seconds: 12, isExact: false))
        #expect(driver.starts.first?.sequence == 3)
    }

    @Test func anEventPlaylistJoinedLateTellsWhereItJoined() {
        var driver = Self.driver { _, time in .media(Driver.media(count: 10, kind: .event, ended: time > 0)) }
        driver.run()
        #expect(driver.answers.first?.startTime == .init(seconds: 28, isExact: false))
        #expect(driver.answers.first?.offset == 0)
        #expect(driver.answers.first?.seeksByTime == true)
    }

    @Test func aPausedDeliveryWaitsForResumeThenIsGivenAgain() {
        var driver = Self.driver { _, _ in .media(Driver.media(count: 2)) }
        driver.pauses = 3
        driver.run()
        #expect(driver.ending == .finished)
        #expect(driver.delivered.count == 2)
    }

    @Test func aResumeDuringADeliveryUndoesThePauseItAnswers() {
        var machine = Self.following(Driver.media(count: 1))
        #expect(machine.input(.segmentEnded(delivered: 0)) == [.wake])
        #expect(machine.input(.tick(at: 1)).last.map { if case .finishSegment = $0 { true } else { false } } == true)
        #expect(machine.input(.tailRead([7], at: 1)) == [.deliver([7])])
        #expect(machine.input(.resume) == [])
        #expect(machine.input(.deliveryPaused) == [.deliver([7])])
        #expect(machine.input(.deliveryPaused) == [.wait(until: nil)])
        #expect(machine.input(.resume) == [.wake])
        #expect(machine.input(.tick(at: 2)) == [.deliver([7])])
        #expect(machine.input(.delivered(at: 2)) == [.cancelTransfers, .end(.finished)])
    }

    @Test func aResumeBeforeTheSegmentsTransferIsKnownReachesIt() {
        var machine = Self.following(Driver.media(count: 1), started: false)
        #expect(machine.input(.resume) == [])
        #expect(machine.input(.segmentStarted(at: 0)) == [.resumeSegment, .wait(until: nil)])
        #expect(machine.input(.resume) == [.resumeSegment])
    }

    @Test func aSegmentThatEndsBeforeItIsKnownIsLookedAtOnTheNextTick() {
        var machine = Self.following(Driver.media(count: 1), started: false)
        #expect(machine.input(.segmentEnded(delivered: 5)) == [.wake])
        #expect(machine.input(.segmentEnded(delivered: 5)) == [])
        #expect(machine.input(.segmentStarted(at: 0)) == [.wait(until: nil)])
        #expect(machine.input(.tick(at: 0)) == [.finishSegment(Self.streamingPart(machine))])
    }

    /// Machines in every state the scenarios pass through (with a pause, a retry, a seek, a
    /// reload and an initialization section on the way).
    static func states() -> [Machine] {
        var machines: [Machine] = []
        let withMap = Driver.media(count: 3, kind: .event, mapAt: 1)
        var driver = Self.driver(time: 5) { _, time in .media(time < 1 ? withMap : Driver.media(count: 4, ended: true)) }
        driver.pauses = 1
        driver.prefetchTime = { $0.hasSuffix("s2.ts") ? 1 : 0.1 }
        driver.outcome = { sequence, attempt in
            sequence == 2 && attempt == 1 ? .failed(Self.lost, retry: true, delivered: 0) : .ended(delivered: 0)
        }
        driver.timestamps = [0: 0]
        driver.run { machines.append($0.machine) }
        machines.append(driver.machine)
        return machines
    }

    /// The states `states()` must reach: the phases and the steps while following.
    static let labels: Set<String> = [
        "loading", "locating", "opening", "reloading", "waitingReload", "initializing", "delivering", "waitingPrefetch",
        "streaming", "backingOff", "finishing", "over",
    ]

    /// The name of a machine's phase, or of its step while following.
    static func label(_ machine: Machine) -> String {
        let name = if case .following(let following) = machine.phase { "\(following.step)" } else { "\(machine.phase)" }
        return String(name.prefix { $0 != "(" })
    }

    @Test func everyInputFromAnotherThreadInEveryStateReturnsAtOnceAndStopEndsTheThread() {
        let machines = Self.states()
        let labels = Set(machines.map(Self.label))
        #expect(labels.isSuperset(of: Self.labels), "\(labels)")
        let foreign: [Machine.Input] = [
            .resume, .segmentEnded(delivered: 1), .segmentFailed(Self.lost, retry: true, delivered: 1),
            .prefetchEnded(key: "0 http://host/s1.ts"), .stop,
        ]
        for state in machines {
            for input in foreign {
                var machine = state
                let actions = machine.input(input)
                #expect(!actions.contains(where: Driver.isFollowUp), "\(input) in \(state.phase) gave \(actions)")
            }
            var stopped = state
            let actions = stopped.input(.stop)
            #expect(state.isOver ? actions.isEmpty : actions == [.cancelTransfers, .wake])
            #expect(stopped.isOver)
            if case .stopping = stopped.phase { #expect(stopped.input(.tick(at: 100)) == [.end(.stopped)]) }
            #expect(stopped.input(.tick(at: 101)) == [])
            #expect(stopped.input(.resume) == [])
        }
    }

    @Test(arguments: 0..<40 as Range<UInt64>)
    func seededRandomRunsKeepEveryInvariantAndEnd(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let count = Int.random(in: 1...8, using: &random)
        let kind = [HLSMediaPlaylist.Kind.vod, .event, nil].randomElement(using: &random)!
        let endTime = Double.random(in: 0...30, using: &random)
        let failure = Double.random(in: 0...0.3, using: &random)
        var outcomes = SplitMix64(seed: seed &+ 1)
        var driver = Self.driver(time: Bool.random(using: &random) ? Double.random(in: 0...40, using: &random) : nil) { _, time in
            let first = kind == nil ? Int64(time / 4) : 0
            return .media(Driver.media(from: first, count: count + (kind == .vod ? 0 : Int(time / 4)), kind: kind, ended: time >= endTime))
        }
        driver.timestamps = Bool.random(using: &random) ? [0: 0, 1: 360_000, 2: 720_000] : [:]
        driver.pauses = Int.random(in: 0...3, using: &random)
        driver.transferTime = Double.random(in: 0...3, using: &random)
        driver.outcome = { _, _ in
            let draw = Double.random(in: 0..<1, using: &outcomes)
            if draw < failure { return .failed(Self.lost, retry: draw > failure / 10, delivered: 3) }
            return .ended(delivered: 3)
        }
        var interruptions = SplitMix64(seed: seed &+ 2)
        driver.run(steps: 5000) { driver in
            let draw = Double.random(in: 0..<1, using: &interruptions)
            if draw < 0.05 { driver.feedForeign(.resume) }
            if draw > 0.998 { driver.feedForeign(.stop) }
        }
        #expect(driver.ending != nil, "seed \(seed): \(driver.machine.phase)")
        #expect(driver.machine.isOver)
        // Segments go forward; the attempts at each are 1, 2, ... in a row.
        for (earlier, later) in zip(driver.starts, driver.starts.dropFirst()) {
            #expect(
                later.sequence > earlier.sequence && later.attempt == 1
                    || later.sequence == earlier.sequence && later.attempt == earlier.attempt + 1,
                "seed \(seed): \(earlier) then \(later)")
        }
    }

    /// A machine playing the first segment of `media` (its transfer known when `started`).
    static func following(_ media: HLSMediaPlaylist, started: Bool = true) -> Machine {
        var machine = Machine(Machine.Configuration(url: url))
        _ = machine.input(.start(at: 0))
        _ = machine.input(.playlistLoaded(.media(media), url: url, base: url, at: 0))
        _ = machine.input(.opened(at: 0))
        if started { _ = machine.input(.segmentStarted(at: 0)) }
        return machine
    }

    static func streamingPart(_ machine: Machine) -> Machine.Part {
        guard case .following(let following) = machine.phase, let part = following.upcoming.first else {
            preconditionFailure("not following")
        }
        return part
    }
}
