import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player's state machine alone: every state x input pair, and the sequences users hit.
struct PlayerStateMachineTests {
    typealias Machine = PlayerStateMachine
    static let networkError = AudioStreamerError(.network, "connection lost")
    static let forbidden = AudioStreamerError(.httpStatus, "403", status: 403, retryable: false)
    static let decoderError = AudioStreamerError(.decoder, "broken")

    static let inputs: [Machine.Input] = [
        .play, .pause, .stop, .seek(.buffered), .seek(.network(offset: 1000)), .bufferReady, .outputStarted,
        .underrun, .endOfStream, .dataArrived, .connectionCompleted, .connectionFailed(networkError),
        .connectionFailed(forbidden), .reconnectDue, .fatal(decoderError),
    ]

    /// Inputs that drive a fresh machine into each state.
    static let paths: [(AudioStreamerState, [Machine.Input])] = [
        (.initialized, []),
        (.waitingForData, [.play]),
        (.waitingForOutput, [.play, .bufferReady]),
        (.playing, [.play, .bufferReady, .outputStarted]),
        (.paused, [.play, .bufferReady, .outputStarted, .pause]),
        (.done, [.play, .bufferReady, .outputStarted, .connectionCompleted, .endOfStream]),
        (.stopped(.user), [.play, .stop]),
        (.stopped(.error(decoderError)), [.play, .fatal(decoderError)]),
    ]

    static func machine(in state: AudioStreamerState) -> Machine {
        var machine = Machine()
        for input in paths.first(where: { $0.0 == state })!.1 { _ = machine.handle(input) }
        #expect(machine.state == state)
        return machine
    }

    static func emitted(_ actions: [Machine.Action]) -> [AudioStreamerEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    @Test(arguments: paths.map(\.0))
    func everyInputInEveryStateKeepsTheInvariants(_ state: AudioStreamerState) {
        for input in Self.inputs {
            var machine = Self.machine(in: state)
            let actions = machine.handle(input)
            let events = Self.emitted(actions)
            // A state change is announced exactly when it happens, with the new state.
            let changes = events.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }
            if machine.state != state {
                #expect(changes == [machine.state], "\(state) + \(input)")
            } else {
                #expect(changes.isEmpty, "\(state) + \(input)")
            }
            // Final states absorb everything.
            if state.isFinal {
                #expect(actions.isEmpty, "\(state) + \(input)")
                #expect(machine.state == state)
            }
            // Stop and fatal errors end everything, releasing it all.
            if !state.isFinal, input == .stop {
                #expect(machine.state == .stopped(.user))
                #expect(actions.contains(.release))
            }
            if !state.isFinal, input == .fatal(Self.decoderError) {
                #expect(machine.state == .stopped(.error(Self.decoderError)))
                #expect(actions.contains(.release))
            }
            // Entering a final state releases; release happens only then.
            #expect(actions.contains(.release) == (machine.state.isFinal && !state.isFinal), "\(state) + \(input)")
            // The output is started only on the way to "waiting for output".
            if actions.contains(.startOutput) { #expect(machine.state == .waitingForOutput) }
        }
    }

    @Test func startsWaitsForDataThenTheOutputThenPlays() {
        var m = Machine()
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForData)), .connect, .emit(.bufferingStarted)])
        #expect(m.handle(.dataArrived) == [])
        #expect(m.handle(.bufferReady) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        #expect(m.handle(.outputStarted) == [.emit(.stateChanged(.playing)), .emit(.bufferingEnded)])
        #expect(m.handle(.play) == [])
    }

    @Test func anUnderrunBuffersAndResumesTheSameOutput() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.underrun) == [.emit(.stateChanged(.waitingForData)), .pauseOutput, .emit(.bufferingStarted)])
        #expect(m.handle(.bufferReady) == [.emit(.stateChanged(.playing)), .resumeOutput, .emit(.bufferingEnded)])
    }

    @Test func theQueueRunningDryAfterTheLastByteIsNotBuffering() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.connectionCompleted)
        #expect(m.handle(.underrun) == [])
        #expect(m.handle(.endOfStream) == [.emit(.stateChanged(.done)), .release])
    }

    @Test func pauseAndPlay() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.pause) == [.emit(.stateChanged(.paused)), .pauseOutput])
        #expect(m.handle(.pause) == [])
        #expect(m.handle(.play) == [.emit(.stateChanged(.playing)), .resumeOutput])
    }

    @Test func pausedBeforeTheBufferFilledStartsTheOutputOnPlay() {
        var m = Self.machine(in: .waitingForData)
        #expect(m.handle(.pause) == [.emit(.stateChanged(.paused))])
        #expect(m.handle(.bufferReady) == [])
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func pausedWithoutEnoughDataWaitsForItOnPlay() {
        var m = Self.machine(in: .waitingForData)
        _ = m.handle(.pause)
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForData)), .emit(.bufferingStarted)])
        #expect(m.handle(.bufferReady) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func aSeekWhilePlayingBuffersFromTheTarget() {
        var m = Self.machine(in: .playing)
        #expect(m.handle(.seek(.network(offset: 5000))) ==
            [.seekConnect(offset: 5000), .emit(.stateChanged(.waitingForData)), .emit(.bufferingStarted)])
        // The output restarts: it was flushed by the seek.
        #expect(m.handle(.bufferReady) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
        #expect(m.handle(.outputStarted) == [.emit(.stateChanged(.playing)), .emit(.bufferingEnded)])
    }

    @Test func aSeekWhileBufferingDoesNotAnnounceBufferingTwice() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.underrun)
        #expect(m.handle(.seek(.buffered)) == [.seekBuffered])
        #expect(m.state == .waitingForData)
    }

    @Test func aSeekWhilePausedStaysPaused() {
        var m = Self.machine(in: .paused)
        #expect(m.handle(.seek(.buffered)) == [.seekBuffered])
        #expect(m.state == .paused)
        _ = m.handle(.bufferReady)
        #expect(m.handle(.play) == [.emit(.stateChanged(.waitingForOutput)), .startOutput])
    }

    @Test func stopDuringASeek() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.seek(.network(offset: 10)))
        #expect(m.handle(.stop) == [.emit(.stateChanged(.stopped(.user))), .release])
        #expect(m.handle(.bufferReady) == [])
        #expect(m.handle(.connectionFailed(Self.networkError)) == [])
    }

    @Test func aSeekCancelsAPendingReconnect() {
        var m = Self.machine(in: .playing)
        _ = m.handle(.connectionFailed(Self.networkError))
        _ = m.handle(.seek(.network(offset: 99)))
        #expect(m.handle(.reconnectDue) == [])
    }

    @Test func failuresReconnectWithBackoffThenStop() {
        var m = Machine(reconnectAttempts: 3, reconnectDelay: 0.5)
        _ = m.handle(.play)
        var delays: [Double] = []
        for attempt in 1 ... 3 {
            let actions = m.handle(.connectionFailed(Self.networkError))
            #expect(actions.contains(.disconnect))
            #expect(actions.contains(.emit(.reconnecting(attempt: attempt, Self.networkError))))
            for case .scheduleReconnect(let delay) in actions { delays.append(delay) }
            #expect(m.handle(.reconnectDue) == [.reconnect])
        }
        #expect(delays == [0.5, 1, 2])
        #expect(m.handle(.connectionFailed(Self.networkError)) ==
            [.emit(.stateChanged(.stopped(.error(Self.networkError)))), .release])
    }

    @Test func dataEndsAStreakOfFailures() {
        var m = Machine(reconnectAttempts: 1)
        _ = m.handle(.play)
        for _ in 0 ..< 5 {
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

    @Test func aTimeoutIsRetriedLikeADrop() {
        var m = Self.machine(in: .playing)
        let timeout = AudioStreamerError(.timedOut, "no data")
        #expect(m.handle(.connectionFailed(timeout)).contains(.scheduleReconnect(after: 0.5)))
    }

    @Test func seeksBeforePlayAreIgnored() {
        var m = Machine()
        #expect(m.handle(.seek(.buffered)) == [])
        #expect(m.state == .initialized)
    }

    /// Random input sequences: buffering started and ended alternate, starting with started.
    @Test(arguments: 0 ..< 20)
    func bufferingEventsAlternate(_ seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        var m = Machine()
        var buffering = false
        for _ in 0 ..< 200 {
            let input = Self.inputs[Int(generator.next() % UInt64(Self.inputs.count))]
            if input == .stop || input == .fatal(Self.decoderError) { continue }
            for event in Self.emitted(m.handle(input)) {
                if event == .bufferingStarted { #expect(!buffering); buffering = true }
                if event == .bufferingEnded { #expect(buffering); buffering = false }
            }
        }
    }
}
