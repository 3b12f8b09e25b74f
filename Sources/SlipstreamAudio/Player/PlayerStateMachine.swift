/// The player's decisions as a pure value: inputs in (user commands, what the network side, the
/// packet queue, the decoder and the output report), actions out (for `AudioStreamer` to carry
/// out). No I/O, no clocks, no threads: every state x input pair is tested on its own.
///
/// It decides when the network connects, reconnects (with backoff) and resumes after
/// backpressure, when the output starts, pauses and resumes ("buffering"), how much audio must
/// be queued before it does (the readiness watermark it arms), and when a start time is sought.
struct PlayerStateMachine: Sendable {
    /// How a seek was carried out, as the streamer and its network side planned it.
    enum SeekPlan: Hashable, Sendable {
        /// The target is in packets already queued: no network.
        case buffered
        /// The connection reads on to the target (the queue was emptied; no ranges here).
        case readOn
        /// A new request from this byte offset.
        case network(offset: Int64)
    }

    /// What the playback side's decoder tells the rest once it exists.
    struct DecoderFacts: Hashable, Sendable {
        /// Which decoded frames are heard.
        var trim: GaplessTrim
        /// Packets needed before a seek point.
        var primingPackets: Int
    }

    enum Input: Hashable, Sendable {
        case play
        case pause
        case stop
        case seek(SeekPlan)
        /// A seek asked for before the decoder existed (or before `play`: where to start): it
        /// waits for `decoderReady`.
        case seekDeferred
        /// The seek waiting for the decoder cannot be made (the stream cannot seek): play from
        /// where the stream starts.
        case startSeekUnavailable
        /// The playback side made its decoder (the first, or one for a new format).
        case decoderReady(DecoderFacts)
        /// The packet queue reached readiness watermark `id`.
        case bufferReady(id: Int)
        /// The queue is full: it told the producer to pause (pause number `episode`).
        case producerPaused(episode: Int)
        /// The queue fell below its low watermark after pause number `episode`.
        case producerResumable(episode: Int)
        /// The first frames after a start reached the output.
        case outputStarted
        /// The queue ran dry before the end of the stream, playing to an output that is
        /// `heard` as it plays (`AudioOutput.playsInRealTime`).
        case underrun(heard: Bool)
        /// The last frame of the stream was heard.
        case endOfStream
        /// Bytes arrived on the current connection (ends a streak of failed reconnects).
        case dataArrived
        /// A connection answered: the stream is live (no length, no end) or not.
        case answered(isLive: Bool)
        /// The connection delivered the whole response.
        case connectionCompleted
        /// The response of a live stream ended (the station dropped the listener, or its
        /// source went away): reconnect, unless the live reconnects are spent.
        case liveStreamEnded(AudioStreamerError)
        /// The connection failed (a timeout included).
        case connectionFailed(AudioStreamerError)
        /// A scheduled reconnect is due.
        case reconnectDue
        /// Playback cannot go on (format, decoder, output).
        case fatal(AudioStreamerError)
        /// The decoder could not decode `count` of the `total` frames it was given so far.
        case undecodableFrames(count: Int, total: Int)
    }

    enum Action: Hashable, Sendable {
        /// Open a connection from the start of the stream.
        case connect
        /// Open a connection from where the stream is to go on (after a failure).
        case reconnect
        /// No more bytes will come: the packets queued are the last (a live stream that ended
        /// with no reconnect left).
        case finishStream
        /// Open a connection from this offset (a seek), dropping the current one.
        case seekConnect(offset: Int64)
        /// The seek was served from the queue (nothing to do: the queue moved already).
        case seekBuffered
        /// Close the connection and drop it.
        case disconnect
        /// Let the paused producer go on: the queue has room again.
        case resumeProducer
        /// Arm the queue's readiness watermark: `bufferReady(id:)` once this many seconds of
        /// audio are queued (or the queue is full, or the stream ended with audio queued).
        case awaitBuffer(seconds: Double, id: Int)
        /// Plan the seek that waited for the decoder (a start time): its trim is known now.
        case seekToStart
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
    /// Reconnects of a live stream allowed in all (nil: no bound); a live stream is
    /// reconnected after any failure, and after its end.
    let liveReconnectAttempts: Int?
    /// The longest wait before a reconnect of a live stream, in seconds (the gap stays short).
    static let longestLiveReconnectDelay = 5.0
    /// Delay before the first reconnect, doubled for each further one.
    let reconnectDelay: Double
    /// Seconds queued before playing starts, or starts again after a seek.
    let startThreshold: Double
    /// Seconds queued before playing starts again after the queue ran dry.
    let restartThreshold: Double

    private(set) var state = AudioStreamerState.initialized
    /// Enough audio is queued to play.
    private(set) var isReady = false
    /// The output has been started since the last seek.
    private(set) var isOutputRunning = false
    /// `bufferingStarted` was announced last (not `bufferingEnded`).
    private(set) var isBuffering = false
    /// A connection is open (or being opened).
    private(set) var isConnected = false
    /// The current connection ended well: no more bytes will come (until a seek).
    private(set) var isNetworkComplete = false
    /// The stream is live, as its last answer said.
    private(set) var isLive = false
    /// Reconnects of the live stream so far.
    private(set) var liveReconnects = 0
    /// Failed connection attempts in the current streak.
    private(set) var failures = 0
    /// A reconnect is scheduled.
    private(set) var isReconnectPending = false
    /// The last pause the queue told of, and the last one it let go of.
    private(set) var pausedEpisode = 0
    private(set) var resumedEpisode = 0
    /// The id of the readiness watermark waited for, if one is.
    private(set) var awaitedWatermark: Int?
    private var watermarksArmed = 0
    /// A seek (a start time) waits for the decoder.
    private(set) var isStartSeekPending: Bool
    /// The decoder's facts, once it exists.
    private(set) var decoder: DecoderFacts?

    /// A machine for a player that starts at a start time (`startsWithSeek`) or not.
    init(
        reconnectAttempts: Int = 3, liveReconnectAttempts: Int? = nil, reconnectDelay: Double = 0.5,
        startThreshold: Double = 0.05, restartThreshold: Double = 1, startsWithSeek: Bool = false
    ) {
        self.reconnectAttempts = reconnectAttempts
        self.liveReconnectAttempts = liveReconnectAttempts
        self.reconnectDelay = reconnectDelay
        self.startThreshold = startThreshold
        self.restartThreshold = restartThreshold
        isStartSeekPending = startsWithSeek
    }

    /// The queue told the producer to pause and has not let it go since.
    var isBackpressured: Bool { pausedEpisode > resumedEpisode }

    /// Whether bytes should be arriving now: a connection is open, not paused by backpressure,
    /// not complete, no reconnect waits, and the user has not paused. The inactivity timeout
    /// counts only then.
    var isExpectingData: Bool {
        isConnected && !isBackpressured && !isNetworkComplete && !isReconnectPending && state != .paused
            && state != .initialized && !state.isFinal
    }
}

/// The state machine's transitions: one input at a time, in order.
extension PlayerStateMachine {
    mutating func handle(_ input: Input) -> [Action] {
        if state.isFinal { return [] }
        switch input {
        case .play: return play()
        case .pause: return pause()
        case .stop: return move(to: .stopped(.user)) + [.release]
        case .seek(let plan): return seek(plan)
        case .seekDeferred: return deferSeek()
        case .startSeekUnavailable: return startSeekUnavailable()
        case .decoderReady(let facts): return decoderReady(facts)
        case .bufferReady(let id): return bufferReady(id)
        case .producerPaused(let episode):
            pausedEpisode = max(pausedEpisode, episode)
            return []
        case .producerResumable(let episode):
            resumedEpisode = max(resumedEpisode, episode)
            return [.resumeProducer]
        case .outputStarted:
            isOutputRunning = true
            switch state {
            case .waitingForOutput: return move(to: .playing) + buffering(false)
            // Paused while it started: it starts playing, so it is paused at once (else an
            // output that is not paced by a device plays the whole stream while "paused").
            case .paused: return [.pauseOutput]
            default: return []
            }
        case .underrun(let heard): return underrun(heard: heard)
        case .endOfStream:
            guard state != .initialized else { return [] }
            return move(to: .done) + [.release]
        case .dataArrived:
            failures = 0
            return []
        case .answered(let live):
            isLive = live
            return []
        case .connectionCompleted:
            isNetworkComplete = true
            isConnected = false
            return []
        case .liveStreamEnded(let error):
            guard canReconnect(after: error) else {
                isNetworkComplete = true
                isConnected = false
                return [.finishStream]
            }
            return connectionFailed(error)
        case .connectionFailed(let error): return connectionFailed(error)
        case .reconnectDue:
            guard isReconnectPending else { return [] }
            isReconnectPending = false
            connected()
            return [.reconnect]
        case .fatal(let error):
            return fail(error)
        case .undecodableFrames(let count, let total):
            return [.emit(.undecodableFrames(count: count, total: total))]
        }
    }

    private mutating func play() -> [Action] {
        switch state {
        case .initialized:
            connected()
            let actions = move(to: .waitingForData) + [.connect] + buffering(true)
            return isStartSeekPending ? actions : actions + arm(startThreshold)
        case .paused where isReady && isOutputRunning:
            return move(to: .playing) + [.resumeOutput] + buffering(false)
        case .paused where isReady:
            return move(to: .waitingForOutput) + [.startOutput]
        case .paused:
            return move(to: .waitingForData) + buffering(true)
        default:
            return []
        }
    }

    private mutating func pause() -> [Action] {
        switch state {
        case .playing, .waitingForData, .waitingForOutput:
            // The playback side stops too, its output started or not: told to start (or playing
            // on after a seek) and meanwhile opening its output, it would otherwise play on until
            // it told the machine its output started, which to an unpaced output can be the whole
            // file.
            return move(to: .paused) + [.pauseOutput]
        default:
            return []
        }
    }

    private mutating func seek(_ plan: SeekPlan) -> [Action] {
        guard state != .initialized else { return [] }
        isReady = false
        isStartSeekPending = false
        // The output restarts from the target: frames queued in it are dropped by the seek.
        isOutputRunning = false
        var actions: [Action]
        switch plan {
        case .buffered:
            actions = [.seekBuffered]
        case .readOn:
            // The queue was emptied: the connection goes on, paused or not.
            resumedEpisode = pausedEpisode
            actions = []
        case .network(let offset):
            isNetworkComplete = false
            isReconnectPending = false
            failures = 0
            connected()
            actions = [.seekConnect(offset: offset)]
        }
        if state != .paused {
            actions += move(to: .waitingForData) + buffering(true)
        }
        return actions + arm(startThreshold)
    }

    private mutating func deferSeek() -> [Action] {
        isStartSeekPending = true
        isReady = false
        awaitedWatermark = nil
        // Before `play` the seek sets where playing starts.
        return state == .initialized || decoder == nil ? [] : startSeek()
    }

    private mutating func startSeekUnavailable() -> [Action] {
        isStartSeekPending = false
        guard state != .initialized else { return [] }
        return arm(startThreshold)
    }

    private mutating func decoderReady(_ facts: DecoderFacts) -> [Action] {
        decoder = facts
        guard isStartSeekPending, state != .initialized else { return [] }
        return startSeek()
    }

    private mutating func bufferReady(_ id: Int) -> [Action] {
        guard id == awaitedWatermark else { return [] }
        awaitedWatermark = nil
        isReady = true
        switch state {
        case .waitingForData where !isOutputRunning:
            return move(to: .waitingForOutput) + [.startOutput]
        case .waitingForData:
            return move(to: .playing) + [.resumeOutput] + buffering(false)
        default:
            return []
        }
    }

    /// The queue ran dry: buffering, unless nothing stopped that anyone hears. A live stream
    /// comes at real time, and an output nobody hears as it plays (a WAV file, the unpaced null
    /// output) takes each piece as it comes: it runs dry at every piece, and waiting for more is
    /// all there is to do (buffering a second at a time would only toggle the state).
    private mutating func underrun(heard: Bool) -> [Action] {
        guard heard || !isLive else { return [] }
        isReady = false
        guard state == .playing, !isNetworkComplete else { return [] }
        return move(to: .waitingForData) + [.pauseOutput] + buffering(true) + arm(restartThreshold)
    }

    private mutating func connectionFailed(_ error: AudioStreamerError) -> [Action] {
        guard canReconnect(after: error) else { return fail(error) }
        var delay = reconnectDelay * Double(1 << min(failures, 6))
        if isLive { delay = min(delay, max(Self.longestLiveReconnectDelay, reconnectDelay)) }
        failures += 1
        if isLive { liveReconnects += 1 }
        isReconnectPending = true
        isConnected = false
        resumedEpisode = pausedEpisode
        return [.disconnect, .scheduleReconnect(after: delay), .emit(.reconnecting(attempt: failures, error))]
    }

    /// Whether a failure may be retried: a retryable one within the streak's attempts, or on a
    /// live stream any one (a station whose source went away answers 404 until it is back)
    /// within the live attempts.
    private func canReconnect(after error: AudioStreamerError) -> Bool {
        if isLive { return liveReconnects < liveReconnectAttempts ?? Int.max }
        return error.isRetryable && failures < reconnectAttempts
    }

    private mutating func fail(_ error: AudioStreamerError) -> [Action] {
        move(to: .stopped(.error(error))) + [.release]
    }

    /// A connection opens: it is not paused by backpressure.
    private mutating func connected() {
        isConnected = true
        resumedEpisode = pausedEpisode
    }

    /// The seek waiting for the decoder is planned now (it is no longer pending: a second
    /// decoder, for a new format, does not plan it again).
    private mutating func startSeek() -> [Action] {
        isStartSeekPending = false
        return [.seekToStart]
    }

    /// Arms a new readiness watermark; an older one's report is ignored from now on.
    private mutating func arm(_ seconds: Double) -> [Action] {
        watermarksArmed += 1
        awaitedWatermark = watermarksArmed
        return [.awaitBuffer(seconds: seconds, id: watermarksArmed)]
    }

    /// Announces that buffering started or ended, when it did not already: the two events
    /// alternate, starting with started.
    private mutating func buffering(_ started: Bool) -> [Action] {
        guard started != isBuffering else { return [] }
        isBuffering = started
        return [.emit(started ? .bufferingStarted : .bufferingEnded)]
    }

    private mutating func move(to next: AudioStreamerState) -> [Action] {
        guard next != state else { return [] }
        state = next
        return [.emit(.stateChanged(next))]
    }
}
