import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player's state machine alone: every state x input pair, and the sequences users hit.
struct PlayerStateMachineTests {
    typealias Machine = PlayerStateMachine
    static let networkError = AudioStreamerError(.network, "connection lost")
    static let forbidden = AudioStreamerError(.httpStatus, "403", status: 403, retryable: false)
    static let decoderError = AudioStreamerError(.decoder, "broken")
    static let facts = Machine.DecoderFacts(trim: .none, primingPackets: 4)
    static let liveEnd = AudioStreamerError(.network, "the live stream ended", retryable: true)

    /// One step of a test: an input as given, or "the armed watermark was reached" (whatever
    /// its id is).
    enum Step: Hashable, CustomStringConvertible {
        case input(Machine.Input)
        case ready

        var description: String {
            switch self {
            case .input(let input): "\(input)"
            case .ready: "ready"
            }
        }
    }

    static let steps: [Step] = [
        .input(.play), .input(.pause), .input(.stop), .input(.seek(.buffered)), .input(.seek(.readOn)),
        .input(.seek(.network(offset: 1000))), .input(.seekDeferred), .input(.startSeekUnavailable),
        .input(.decoderReady(facts)), .ready, .input(.bufferReady(id: 999)), .input(.producerPaused(episode: 1)),
        .input(.producerResumable(episode: 1)), .input(.outputStarted), .input(.underrun(heard: true)),
        .input(.underrun(heard: false)), .input(.endOfStream), .input(.dataArrived), .input(.connectionCompleted),
        .input(.connectionFailed(networkError)), .input(.connectionFailed(forbidden)), .input(.reconnectDue),
        .input(.fatal(decoderError)),
        .input(.answered(isLive: true)), .input(.answered(isLive: false)), .input(.liveStreamEnded(liveEnd)),
        .input(.undecodableFrames(count: 3, total: 10)),
    ]

    /// Steps that drive a fresh machine into each state.
    static let paths: [(AudioStreamerState, [Step])] = [
        (.initialized, []),
        (.waitingForData, [.input(.play)]),
        (.waitingForOutput, [.input(.play), .ready]),
        (.playing, [.input(.play), .ready, .input(.outputStarted)]),
        (.paused, [.input(.play), .ready, .input(.outputStarted), .input(.pause)]),
        (.done, [.input(.play), .ready, .input(.outputStarted), .input(.connectionCompleted), .input(.endOfStream)]),
        (.stopped(.user), [.input(.play), .input(.stop)]),
        (.stopped(.error(decoderError)), [.input(.play), .input(.fatal(decoderError))]),
    ]

    @discardableResult
    static func take(_ step: Step, _ machine: inout Machine) -> [Machine.Action] {
        switch step {
        case .input(let input): machine.handle(input)
        case .ready: machine.handle(.bufferReady(id: machine.awaitedWatermark ?? -1))
        }
    }

    /// A machine driven into `state`; one that starts with a seek gets its decoder and plays
    /// from the start as soon as it has connected.
    static func machine(in state: AudioStreamerState, _ make: () -> Machine = { Machine() }) -> Machine {
        var machine = make()
        for step in paths.first(where: { $0.0 == state })!.1 {
            take(step, &machine)
            if machine.isStartSeekPending, machine.state == .waitingForData {
                _ = machine.handle(.decoderReady(facts))
                _ = machine.handle(.startSeekUnavailable)
            }
        }
        #expect(machine.state == state)
        return machine
    }

    static func emitted(_ actions: [Machine.Action]) -> [AudioStreamerEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    static func armed(_ actions: [Machine.Action]) -> [Int] {
        actions.compactMap { if case .awaitBuffer(_, let id) = $0 { id } else { nil } }
    }

    @Test(arguments: paths.map(\.0))
    func everyInputInEveryStateKeepsTheInvariants(_ state: AudioStreamerState) {
        for step in Self.steps {
            for make in [{ Machine() }, { Machine(startsWithSeek: true) }] {
                var machine = Self.machine(in: state, make)
                let before = machine
                let actions = Self.take(step, &machine)
                let context = "\(state) + \(step)"
                // A state change is announced exactly when it happens, with the new state.
                let changes = Self.emitted(actions).compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }
                #expect(changes == (machine.state != state ? [machine.state] : []), "\(context)")
                // Final states absorb everything.
                if state.isFinal {
                    #expect(actions.isEmpty, "\(context)")
                    #expect(machine.state == state)
                }
                // Stop and fatal errors end everything, releasing it all.
                if !state.isFinal, step == .input(.stop) { #expect(machine.state == .stopped(.user)) }
                if !state.isFinal, step == .input(.fatal(Self.decoderError)) {
                    #expect(machine.state == .stopped(.error(Self.decoderError)))
                }
                // A count of undecodable frames is told as it came, and changes nothing else.
                if !state.isFinal, step == .input(.undecodableFrames(count: 3, total: 10)) {
                    #expect(actions == [.emit(.undecodableFrames(count: 3, total: 10))] && machine.state == state, "\(context)")
                }
                // Entering a final state releases; release happens only then.
                #expect(actions.contains(.release) == (machine.state.isFinal && !state.isFinal), "\(context)")
                // The output is started only on the way to "waiting for output".
                if actions.contains(.startOutput) { #expect(machine.state == .waitingForOutput, "\(context)") }
                // A watermark is armed at most once per input, with a new id that is the one awaited.
                let ids = Self.armed(actions)
                #expect(ids.count <= 1, "\(context)")
                if let id = ids.first {
                    #expect(id == machine.awaitedWatermark && id != before.awaitedWatermark, "\(context)")
                }
                // A report of a watermark not awaited changes nothing.
                if step == .input(.bufferReady(id: 999)) {
                    #expect(actions.isEmpty && machine.isReady == before.isReady, "\(context)")
                }
                // The producer is let go only when the queue says it may be.
                #expect(
                    actions.contains(.resumeProducer) == (step == .input(.producerResumable(episode: 1)) && !state.isFinal),
                    "\(context)")
                // Opening a connection means being connected, and not paused by backpressure.
                if actions.contains(where: {
                    [.connect, .reconnect].contains($0) || { if case .seekConnect = $0 { true } else { false } }($0)
                }) {
                    #expect(machine.isConnected && !machine.isBackpressured, "\(context)")
                }
                // The start seek is planned only once the decoder's facts are known.
                if actions.contains(.seekToStart) { #expect(machine.decoder != nil && !machine.isStartSeekPending, "\(context)") }
                // A paused machine's running output was told to pause (when it became both).
                if machine.state == .paused, machine.isOutputRunning, !(before.state == .paused && before.isOutputRunning) {
                    #expect(actions.contains(.pauseOutput), "\(context)")
                }
                // Bytes are never expected while paused, backpressured or finished.
                if machine.isExpectingData {
                    #expect(machine.state != .paused && !machine.isBackpressured && !machine.state.isFinal, "\(context)")
                }
            }
        }
    }

    @Test func startsWaitsForDataThenTheOutputThenPlays() {
        var m = Machine()
        #expect(
            m.handle(.play) == [
                .emit(.stateChanged(.waitingForData)), .connect, .emit(.bufferingStarted),
                .awaitBuffer(seconds: 0.05, id: 1),
            ])
        #expect(m.isExpectingData)
        #expect(m.handle(.dataArrived) == [])
        #expect(m.handle(.bufferReady(id: 1)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        #expect(m.handle(.outputStarted) == [.emit(.stateChanged(.playing)), .emit(.bufferingEnded)])
        #expect(m.handle(.play) == [])
    }

    /// Paused while its output starts (a pause right after play, or on a busy machine): the
    /// playback side is stopped at once (it may be opening the output and would play on), the
    /// output that then starts is paused at once, and play resumes it.
    @Test func anOutputThatStartsWhilePausedIsPausedAtOnce() {
        var m = Machine()
        _ = m.handle(.play)
        #expect(m.handle(.bufferReady(id: 1)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        #expect(m.handle(.pause) == [.emit(.stateChanged(.paused)), .pauseOutput])
        #expect(m.handle(.outputStarted) == [.pauseOutput])
        #expect(m.state == .paused)
        #expect(m.handle(.play) == [.emit(.stateChanged(.playing)), .resumeOutput, .emit(.bufferingEnded)])
    }

    @Test func anUnderrunBuffersWithTheRestartThresholdAndResumesTheSameOutput() {
        var m = Self.machine(in: .playing) { Machine(startThreshold: 0.1, restartThreshold: 2) }
        #expect(
            m.handle(.underrun(heard: true)) == [
                .emit(.stateChanged(.waitingForData)), .pauseOutput, .emit(.bufferingStarted),
                .awaitBuffer(seconds: 2, id: 2),
            ])
        #expect(m.handle(.bufferReady(id: 2)) == [.emit(.stateChanged(.playing)), .resumeOutput, .emit(.bufferingEnded)])
    }

    /// A live stream comes at real time: to an output nobody hears, its queue runs dry at every
    /// piece, and that is not buffering; a file's still is, and so is a live stream's to a
    /// device. Pause and play go on as ever.
    @Test func aLiveStreamRunningDryForAnOutputNobodyHearsIsNotBuffering() {
        var live = Self.machine(in: .playing)
        _ = live.handle(.answered(isLive: true))
        #expect(live.handle(.underrun(heard: false)) == [])
        #expect(live.state == .playing && !live.isBuffering)
        #expect(live.handle(.pause) == [.emit(.stateChanged(.paused)), .pauseOutput])
        #expect(live.handle(.play) == [.emit(.stateChanged(.playing)), .resumeOutput])
        #expect(live.handle(.underrun(heard: true)).contains(.emit(.bufferingStarted)))

        var file = Self.machine(in: .playing)
        #expect(file.handle(.underrun(heard: false)).contains(.emit(.bufferingStarted)))
        #expect(file.state == .waitingForData)
    }

    @Test func theQueueRunningDryAfterTheLastByteIsNotBuffering() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.connectionCompleted)
        #expect(!m.isExpectingData)
        #expect(m.handle(.underrun(heard: true)) == [])
        #expect(m.handle(.endOfStream) == [.emit(.stateChanged(.done)), .release])
    }

    @Test func pauseAndPlay() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.pause) == [.emit(.stateChanged(.paused)), .pauseOutput])
        #expect(!m.isExpectingData)
        #expect(m.handle(.pause) == [])
        #expect(m.handle(.play) == [.emit(.stateChanged(.playing)), .resumeOutput])
    }

    @Test func pausedBeforeTheBufferFilledStartsTheOutputOnPlay() {
        var m = Self.machine(in: .waitingForData)
        #expect(m.handle(.pause) == [.emit(.stateChanged(.paused)), .pauseOutput])
        #expect(m.handle(.bufferReady(id: 1)) == [])
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func pausedWithoutEnoughDataWaitsForItOnPlay() {
        var m = Self.machine(in: .waitingForData)
        _ = m.handle(.pause)
        // Still buffering: it was announced and never ended.
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForData))])
        #expect(m.handle(.bufferReady(id: 1)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func aSeekWhilePlayingBuffersFromTheTarget() {
        var m = Self.machine(in: .playing)
        #expect(
            m.handle(.seek(.network(offset: 5000))) == [
                .seekConnect(offset: 5000), .emit(.stateChanged(.waitingForData)), .emit(.bufferingStarted),
                .awaitBuffer(seconds: 0.05, id: 2),
            ])
        // The output restarts: it was flushed by the seek.
        #expect(m.handle(.bufferReady(id: 2)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        #expect(m.handle(.outputStarted) == [.emit(.stateChanged(.playing)), .emit(.bufferingEnded)])
    }

    @Test func aWatermarkArmedBeforeASeekIsNotReadiness() {
        var m = Self.machine(in: .waitingForData)
        _ = m.handle(.seek(.buffered))
        #expect(m.handle(.bufferReady(id: 1)) == [])
        #expect(!m.isReady)
        #expect(m.handle(.bufferReady(id: 2)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func aSeekWhileBufferingDoesNotAnnounceBufferingTwice() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.underrun(heard: true))
        #expect(m.handle(.seek(.buffered)) == [.seekBuffered, .awaitBuffer(seconds: 0.05, id: 3)])
        #expect(m.state == .waitingForData)
    }

    @Test func aSeekWhilePausedStaysPaused() {
        var m = Self.machine(in: .paused)
        #expect(m.handle(.seek(.buffered)) == [.seekBuffered, .awaitBuffer(seconds: 0.05, id: 2)])
        #expect(m.state == .paused)
        _ = m.handle(.bufferReady(id: 2))
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        // No buffering was announced, so none ends.
        #expect(m.handle(.outputStarted) == [.emit(.stateChanged(.playing))])
    }

    /// A seek while the output is being started: back to waiting for data, and buffering (never
    /// ended) is not announced again.
    @Test func aSeekWhileStartingDoesNotAnnounceBufferingTwice() {
        var m = Self.machine(in: .waitingForOutput)
        #expect(m.handle(.seek(.buffered)) == [.seekBuffered, .emit(.stateChanged(.waitingForData)), .awaitBuffer(seconds: 0.05, id: 2)])
    }

    @Test func stopDuringASeek() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.seek(.network(offset: 10)))
        #expect(m.handle(.stop) == [.emit(.stateChanged(.stopped(.user))), .release])
        #expect(m.handle(.bufferReady(id: 2)) == [])
        #expect(m.handle(.connectionFailed(Self.networkError)) == [])
    }

    @Test func aSeekCancelsAPendingReconnect() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.connectionFailed(Self.networkError))
        _ = m.handle(.seek(.network(offset: 99)))
        #expect(m.handle(.reconnectDue) == [])
        #expect(m.isConnected)
    }

    // MARK: - Start time and deferred seeks

    @Test func aStartTimeIsSoughtOnceTheDecoderIsKnownAndOnlyThenBuffers() {
        var m = Machine(startsWithSeek: true)
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForData)), .connect, .emit(.bufferingStarted)])
        #expect(m.awaitedWatermark == nil)
        #expect(m.handle(.decoderReady(Self.facts)) == [.seekToStart])
        #expect(m.decoder == Self.facts)
        #expect(m.handle(.seek(.network(offset: 500))) == [.seekConnect(offset: 500), .awaitBuffer(seconds: 0.05, id: 1)])
        // A decoder for a new format later does not seek again.
        #expect(m.handle(.decoderReady(Self.facts)) == [])
        #expect(m.handle(.bufferReady(id: 1)) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func aStreamThatCannotSeekPlaysFromItsStart() {
        var m = Machine(startsWithSeek: true)
        _ = m.handle(.play)
        _ = m.handle(.decoderReady(Self.facts))
        #expect(m.handle(.startSeekUnavailable) == [.awaitBuffer(seconds: 0.05, id: 1)])
        #expect(!m.isStartSeekPending)
    }

    @Test func aSeekBeforeTheDecoderWaitsForIt() {
        var m = Self.machine(in: .waitingForData)
        #expect(m.handle(.seekDeferred) == [])
        #expect(m.awaitedWatermark == nil)
        #expect(m.handle(.bufferReady(id: 1)) == [])
        #expect(m.handle(.decoderReady(Self.facts)) == [.seekToStart])
        // Once the decoder is known, a deferred seek (one that crossed its report) goes at once.
        #expect(m.handle(.seekDeferred) == [.seekToStart])
    }

    // MARK: - Backpressure

    @Test func backpressurePausesTheInactivityClockAndResumesTheProducer() {
        var m = Self.machine(in: .playing)
        #expect(m.isExpectingData)
        #expect(m.handle(.producerPaused(episode: 1)) == [])
        #expect(m.isBackpressured && !m.isExpectingData)
        #expect(m.handle(.producerResumable(episode: 1)) == [.resumeProducer])
        #expect(!m.isBackpressured && m.isExpectingData)
    }

    /// The queue's reports cross on the way (a pause told after its own resume): the episode
    /// numbers keep them apart, and the producer is always let go.
    @Test func reportsThatCrossKeepBackpressureRight() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.producerResumable(episode: 1)) == [.resumeProducer])
        #expect(m.handle(.producerPaused(episode: 1)) == [])
        #expect(!m.isBackpressured)
        _ = m.handle(.producerPaused(episode: 2))
        #expect(m.isBackpressured)
    }

    @Test(arguments: [Machine.SeekPlan.readOn, .network(offset: 10)])
    func aSeekThatEmptiesTheQueueEndsBackpressure(_ plan: Machine.SeekPlan) {
        var m = Self.machine(in: .playing)
        _ = m.handle(.producerPaused(episode: 1))
        _ = m.handle(.seek(plan))
        #expect(!m.isBackpressured)
    }

    @Test func aSeekInTheBufferKeepsBackpressure() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.producerPaused(episode: 1))
        _ = m.handle(.seek(.buffered))
        #expect(m.isBackpressured)
    }

    @Test func aNewConnectionIsNotBackpressured() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.producerPaused(episode: 1))
        _ = m.handle(.connectionFailed(Self.networkError))
        #expect(!m.isBackpressured && !m.isConnected && !m.isExpectingData)
        #expect(m.handle(.reconnectDue) == [.reconnect])
        #expect(m.isConnected && m.isExpectingData)
    }

    // MARK: - Failures

    @Test func failuresReconnectWithBackoffThenStop() {
        var m = Machine(reconnectAttempts: 3, reconnectDelay: 0.5)
        _ = m.handle(.play)
        var delays: [Double] = []
        for attempt in 1...3 {
            let actions = m.handle(.connectionFailed(Self.networkError))
            #expect(actions.contains(.disconnect))
            #expect(actions.contains(.emit(.reconnecting(attempt: attempt, Self.networkError))))
            for case .scheduleReconnect(let delay) in actions { delays.append(delay) }
            #expect(m.handle(.reconnectDue) == [.reconnect])
        }
        #expect(delays == [0.5, 1, 2])
        #expect(m.handle(.connectionFailed(Self.networkError)) == [.emit(.stateChanged(.stopped(.error(Self.networkError)))), .release])
    }

    @Test func dataEndsAStreakOfFailures() {
        var m = Machine(reconnectAttempts: 1)
        _ = m.handle(.play)
        for _ in 0..<5 {
            #expect(m.handle(.connectionFailed(Self.networkError)).contains(.disconnect))
            _ = m.handle(.reconnectDue)
            _ = m.handle(.dataArrived)
        }
        #expect(m.state == .waitingForData)
    }

    @Test func aClientErrorIsNeverRetried() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.connectionFailed(Self.forbidden)) == [.emit(.stateChanged(.stopped(.error(Self.forbidden)))), .release])
    }

    // MARK: - Live streams

    @Test func aLiveStreamThatEndsOrFailsIsReconnectedWithoutEndWithShortWaits() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.answered(isLive: true))
        var delays: [Double] = []
        for attempt in 1...8 {
            // Its end, a client error (the station's source went away: 404) and a drop alike.
            let failure = [Self.liveEnd, Self.forbidden, Self.networkError][attempt % 3]
            let actions = m.handle(attempt % 3 == 0 ? .liveStreamEnded(failure) : .connectionFailed(failure))
            #expect(actions.contains(.disconnect) && actions.contains(.emit(.reconnecting(attempt: attempt, failure))), "\(actions)")
            for case .scheduleReconnect(let delay) in actions { delays.append(delay) }
            #expect(m.handle(.reconnectDue) == [.reconnect])
        }
        #expect(delays == [0.5, 1, 2, 4, 5, 5, 5, 5])
        #expect(m.state == .playing && m.liveReconnects == 8)
        // Audio again: the next failure is the first of a new streak.
        _ = m.handle(.dataArrived)
        #expect(m.handle(.liveStreamEnded(Self.liveEnd)).contains(.scheduleReconnect(after: 0.5)))
    }

    @Test func liveReconnectsCanBeBoundedInAllAndThenTheStreamEndsOrFails() {
        var m = Self.machine(in: .playing) { Machine(liveReconnectAttempts: 2) }
        _ = m.handle(.answered(isLive: true))
        for _ in 0..<2 {
            #expect(m.handle(.liveStreamEnded(Self.liveEnd)).contains(.scheduleReconnect(after: 0.5)))
            _ = m.handle(.reconnectDue)
            // Audio between the two: the bound counts every reconnect, not a streak.
            _ = m.handle(.dataArrived)
        }
        // Spent: the end is the stream's end (what is queued plays out), a failure fails.
        var ended = m
        #expect(ended.handle(.liveStreamEnded(Self.liveEnd)) == [.finishStream])
        #expect(ended.isNetworkComplete && ended.state == .playing)
        #expect(ended.handle(.endOfStream) == [.emit(.stateChanged(.done)), .release])
        #expect(m.handle(.connectionFailed(Self.forbidden)) == [.emit(.stateChanged(.stopped(.error(Self.forbidden)))), .release])
    }

    @Test func aStreamThatIsNotLiveEndsWithItsResponse() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.answered(isLive: false))
        #expect(m.handle(.connectionFailed(Self.forbidden)).contains(.release))
        var zero = Self.machine(in: .playing) { Machine(liveReconnectAttempts: 0) }
        _ = zero.handle(.answered(isLive: true))
        #expect(zero.handle(.liveStreamEnded(Self.liveEnd)) == [.finishStream])
    }

    @Test func aPausedLiveStreamThatWasDroppedReconnectsAndBuffersOn() {
        var m = Self.machine(in: .paused)
        _ = m.handle(.answered(isLive: true))
        let actions = m.handle(.liveStreamEnded(Self.liveEnd))
        #expect(actions.contains(.emit(.reconnecting(attempt: 1, Self.liveEnd))))
        #expect(m.handle(.reconnectDue) == [.reconnect])
        #expect(m.state == .paused)
        #expect(m.handle(.play).contains(.resumeOutput))
    }

    @Test func aTimeoutIsRetriedLikeADrop() {
        var m = Self.machine(in: .playing)
        let timeout = AudioStreamerError(.timedOut, "no data")
        #expect(m.handle(.connectionFailed(timeout)).contains(.scheduleReconnect(after: 0.5)))
    }

    @Test func aSeekBeforePlaySetsWherePlayingStarts() {
        var m = Machine()
        #expect(m.handle(.seek(.buffered)) == [])
        #expect(m.handle(.seekDeferred) == [])
        #expect(m.state == .initialized)
        // As a start time: no readiness until the seek is made.
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForData)), .connect, .emit(.bufferingStarted)])
        #expect(m.handle(.decoderReady(Self.facts)) == [.seekToStart])
    }

    /// Random step sequences: buffering started and ended alternate, starting with started, and
    /// the output is started only after the watermark awaited was reached.
    @Test(arguments: 0..<50)
    func randomSequencesKeepBufferingEventsInTurn(_ seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        var m = seed % 2 == 0 ? Machine() : Machine(startsWithSeek: true)
        var buffering = false
        var trace: [String] = []
        for _ in 0..<300 {
            let step = Self.steps[Int(generator.next() % UInt64(Self.steps.count))]
            if step == .input(.stop) || step == .input(.fatal(Self.decoderError)) { continue }
            let awaited = m.awaitedWatermark
            let actions = Self.take(step, &m)
            trace.append("\(step) -> \(m.state) \(Self.emitted(actions))")
            if actions.contains(.startOutput) { #expect(step == .ready && awaited != nil || step == .input(.play)) }
            for event in Self.emitted(actions) {
                if event == .bufferingStarted { #expect(!buffering, "\(trace.suffix(8).joined(separator: "\n"))"); buffering = true }
                if event == .bufferingEnded { #expect(buffering, "\(trace.suffix(8).joined(separator: "\n"))"); buffering = false }
            }
        }
    }
}
