/// The player's decisions as a pure value: inputs in (user commands, what the network, the
/// queue and the output report), actions out (for `AudioStreamer` to carry out). No I/O, no
/// clocks, no threads: every state x input pair is tested on its own.
struct PlayerStateMachine: Sendable {
    /// Where a seek lands, as worked out by the streamer from its queue and seek table.
    enum SeekPlan: Hashable, Sendable {
        /// The target is in packets already queued: no network.
        case buffered
        /// A new request from this byte offset.
        case network(offset: Int64)
    }

    enum Input: Hashable, Sendable {
        case play
        case pause
        case stop
        case seek(SeekPlan)
        /// Enough audio is queued to start (or the stream ended with audio queued).
        case bufferReady
        /// The first frames after a start reached the output.
        case outputStarted
        /// The queue ran dry before the end of the stream.
        case underrun
        /// The last frame of the stream was heard.
        case endOfStream
        /// Bytes arrived on the current connection (ends a streak of failed reconnects).
        case dataArrived
        /// The connection delivered the whole response.
        case connectionCompleted
        /// The connection failed (a timeout included).
        case connectionFailed(AudioStreamerError)
        /// A scheduled reconnect is due.
        case reconnectDue
        /// Playback cannot go on (format, decoder, output).
        case fatal(AudioStreamerError)
    }

    enum Action: Hashable, Sendable {
        /// Open a connection from the start of the stream.
        case connect
        /// Open a connection from the next byte the parser needs (after a failure).
        case reconnect
        /// Open a connection from this offset (a seek), dropping the current one.
        case seekConnect(offset: Int64)
        /// Move the queue and decoder to the seek target; the output drops what it holds.
        case seekBuffered
        /// Close the connection and drop it.
        case disconnect
        /// Open the output if needed and play from the queue.
        case startOutput
        /// Pause or resume the output.
        case pauseOutput
        case resumeOutput
        /// Try to reconnect after this many seconds.
        case scheduleReconnect(after: Double)
        case emit(AudioStreamerEvent)
        /// Release the connection, the decoder and the output.
        case release
    }

    /// Reconnects allowed per streak of failures.
    let reconnectAttempts: Int
    /// Delay before the first reconnect, doubled for each further one.
    let reconnectDelay: Double

    private(set) var state = AudioStreamerState.initialized
    /// Enough audio is queued to play.
    private(set) var isReady = false
    /// The output has been started since the last seek.
    private(set) var isOutputRunning = false
    /// The current connection ended well: no more bytes will come (until a seek).
    private(set) var isNetworkComplete = false
    /// Failed connection attempts in the current streak.
    private(set) var failures = 0
    /// A reconnect is scheduled.
    private(set) var isReconnectPending = false

    init(reconnectAttempts: Int = 3, reconnectDelay: Double = 0.5) {
        self.reconnectAttempts = reconnectAttempts
        self.reconnectDelay = reconnectDelay
    }

    mutating func handle(_ input: Input) -> [Action] {
        if state.isFinal { return [] }
        switch input {
        case .play:
            return play()
        case .pause:
            switch state {
            case .playing:
                return move(to: .paused) + [.pauseOutput]
            case .waitingForData, .waitingForOutput:
                return move(to: .paused) + (isOutputRunning ? [.pauseOutput] : [])
            default:
                return []
            }
        case .stop:
            return move(to: .stopped(.user)) + [.release]
        case .seek(let plan):
            return seek(plan)
        case .bufferReady:
            isReady = true
            switch state {
            case .waitingForData where !isOutputRunning:
                return move(to: .waitingForOutput) + [.startOutput]
            case .waitingForData:
                return move(to: .playing) + [.resumeOutput, .emit(.bufferingEnded)]
            default:
                return []
            }
        case .outputStarted:
            isOutputRunning = true
            guard state == .waitingForOutput else { return [] }
            return move(to: .playing) + [.emit(.bufferingEnded)]
        case .underrun:
            isReady = false
            guard state == .playing, !isNetworkComplete else { return [] }
            return move(to: .waitingForData) + [.pauseOutput, .emit(.bufferingStarted)]
        case .endOfStream:
            guard state != .initialized else { return [] }
            return move(to: .done) + [.release]
        case .dataArrived:
            failures = 0
            return []
        case .connectionCompleted:
            isNetworkComplete = true
            return []
        case .connectionFailed(let error):
            guard error.isRetryable, failures < reconnectAttempts else { return fail(error) }
            let delay = reconnectDelay * Double(1 << min(failures, 6))
            failures += 1
            isReconnectPending = true
            return [.disconnect, .scheduleReconnect(after: delay), .emit(.reconnecting(attempt: failures, error))]
        case .reconnectDue:
            guard isReconnectPending else { return [] }
            isReconnectPending = false
            return [.reconnect]
        case .fatal(let error):
            return fail(error)
        }
    }

    private mutating func play() -> [Action] {
        switch state {
        case .initialized:
            return move(to: .waitingForData) + [.connect, .emit(.bufferingStarted)]
        case .paused where isReady && isOutputRunning:
            return move(to: .playing) + [.resumeOutput]
        case .paused where isReady:
            return move(to: .waitingForOutput) + [.startOutput]
        case .paused:
            return move(to: .waitingForData) + [.emit(.bufferingStarted)]
        default:
            return []
        }
    }

    private mutating func seek(_ plan: SeekPlan) -> [Action] {
        guard state != .initialized else { return [] }
        isReady = false
        // The output restarts from the target: frames queued in it are dropped by the seek.
        isOutputRunning = false
        var actions: [Action]
        switch plan {
        case .buffered:
            actions = [.seekBuffered]
        case .network(let offset):
            isNetworkComplete = false
            isReconnectPending = false
            failures = 0
            actions = [.seekConnect(offset: offset)]
        }
        if state != .paused && state != .waitingForData {
            actions += move(to: .waitingForData) + [.emit(.bufferingStarted)]
        }
        return actions
    }

    private mutating func fail(_ error: AudioStreamerError) -> [Action] {
        move(to: .stopped(.error(error))) + [.release]
    }

    private mutating func move(to next: AudioStreamerState) -> [Action] {
        guard next != state else { return [] }
        state = next
        return [.emit(.stateChanged(next))]
    }
}
