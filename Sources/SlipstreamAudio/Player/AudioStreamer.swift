import Dispatch
import Glibc
import SlipstreamHTTP
import Synchronization

/// Plays audio while it streams: `URL -> HTTP engine -> [raw tap] -> parser -> packet queue ->
/// decoder -> output` (a local file path works too).
///
///     let player = AudioStreamer(url: "http://127.0.0.1:8080/song.mp3")
///     player.play()
///     for await event in player.events { ... }   // state, buffering, progress, properties
///     try player.seek(to: 90)
///     player.stop()
///
/// Threads: the network side runs on the HTTP engine's I/O thread (or a file reader thread), the
/// decoder and the output on the streamer's own playback thread, and the state machine on a
/// private serial queue; nothing blocks the Swift concurrency pool. Every method may be called
/// from any thread.
public final class AudioStreamer: Sendable {
    /// The URL or file path played.
    public let source: String
    /// How the streamer buffers, connects and plays.
    public let configuration: AudioStreamerConfiguration
    /// Everything the streamer reports, in order; the sequence ends after `done` or `stopped`.
    /// A reader that lags loses only older unread progress snapshots, never another event.
    public let events: EventStream<AudioStreamerEvent>

    let eventChannel = EventChannel<AudioStreamerEvent>()
    let core: Mutex<PlayerCore>
    /// Runs the state machine and its actions, one input at a time.
    let control = DispatchQueue(label: "slipstream.audio-streamer")
    /// Wakes the playback thread.
    let playbackWake = DispatchSemaphore(value: 0)
    let engine: HTTPEngine
    let isFile: Bool
    private let delegateBox = Mutex<(any AudioStreamerDelegate)?>(nil)
    nonisolated(unsafe) private var timer: (any DispatchSourceTimer)?

    /// Creates a streamer for an `http(s)://` URL or a local file path; nothing happens until
    /// `play()`.
    public init(url: String, configuration: AudioStreamerConfiguration = AudioStreamerConfiguration(),
                engine: HTTPEngine = .shared) {
        source = url
        self.configuration = configuration
        self.engine = engine
        isFile = !url.contains("://")
        events = EventStream(eventChannel)
        core = Mutex(PlayerCore(configuration: configuration))
    }

    deinit {
        timer?.cancel()
    }

    /// Told of every event as it happens, on the streamer's private queue (keep it quick).
    public var delegate: (any AudioStreamerDelegate)? {
        get { delegateBox.withLock { $0 } }
        set { delegateBox.withLock { $0 = newValue } }
    }

    /// The current state.
    public var state: AudioStreamerState { core.withLock { $0.machine.state } }

    /// What the parser knows about the stream so far (format, duration, bit rate, tags).
    public var properties: AudioStreamProperties { core.withLock { $0.properties } }

    /// Position, duration, buffered audio and bit rate now.
    public var progress: AudioStreamerProgress { core.withLock { Self.progress(of: $0) } }

    /// Starts playing (connecting first), or resumes after `pause()`.
    public func play() { send(.play) }

    /// Pauses the sound at once; the network carries on until the buffer is full.
    public func pause() { send(.pause) }

    /// Stops for good and releases the network, the decoder and the output.
    public func stop() { send(.stop) }

    /// Software volume from 0.0 (silent) to 1.0 (as decoded); takes effect within a few ms.
    public func setVolume(_ volume: Double) {
        core.withLock { $0.volume = min(max(volume, 0), 1) }
    }

    /// The volume now (0.0 to 1.0).
    public var volume: Double { core.withLock { $0.volume } }

    /// Moves playback to `time` seconds from the start: within the buffered audio without
    /// touching the network, else with a new range request from the offset the seek table
    /// gives. Lands on the exact sample where the frame index covers the target, within the
    /// table's estimate elsewhere. Throws when the stream cannot seek (not started, finished, a
    /// live stream, or nothing known about the format yet).
    public func seek(to time: Double) throws(AudioStreamerError) {
        // Before the decoder exists the gapless trim is unknown: the seek waits for it, as a
        // start time does.
        let deferred = core.withLock { core -> Bool in
            guard !core.isDecoderReady, core.machine.state != .initialized, !core.machine.state.isFinal else { return false }
            core.pendingStart = max(time, 0)
            return true
        }
        if deferred { return }
        let (plan, ready) = try core.withLock { core throws(AudioStreamerError) in
            (try planSeek(&core, to: time), checkReady(&core))
        }
        send(.seek(plan))
        if ready { send(.bufferReady) }
        playbackWake.signal()
    }

    // MARK: - The state machine

    /// Feeds one input to the state machine on the control queue and carries out its actions.
    func send(_ input: PlayerStateMachine.Input) {
        control.async { [self] in
            let actions = core.withLock { $0.machine.handle(input) }
            for action in actions { perform(action) }
        }
    }

    private func perform(_ action: PlayerStateMachine.Action) {
        switch action {
        case .connect:
            startTimer()
            PlaybackLoop.start(for: self)
            connect(from: 0, reason: .start)
        case .reconnect:
            let (offset, generation, received) = core.withLock { core in
                (core.parser.nextByteOffset, core.generation, core.totalSize.map { core.parser.nextByteOffset >= $0 } ?? false)
            }
            // A connection that stalled after its last byte needs no other: the stream is whole.
            if received { finish(nil, generation: generation) } else { connect(from: offset, reason: .reconnect) }
        case .seekConnect(let offset):
            connect(from: offset, reason: .seek)
        case .seekBuffered:
            break // the queue and the playback thread were moved by `seek(to:)`
        case .disconnect:
            let connection = core.withLock { core -> (any StreamConnection)? in
                core.generation += 1
                defer { core.connection = nil }
                return core.connection
            }
            connection?.cancel()
        case .startOutput, .resumeOutput:
            core.withLock { $0.run = true }
            playbackWake.signal()
        case .pauseOutput:
            core.withLock { $0.run = false }
            playbackWake.signal()
        case .scheduleReconnect(let delay):
            control.asyncAfter(deadline: .now() + delay) { [self] in send(.reconnectDue) }
        case .emit(let event):
            emit(event)
        case .release:
            release()
        }
    }

    /// Hands an event to the stream and the delegate; ends the stream after a final state.
    func emit(_ event: AudioStreamerEvent) {
        delegate?.audioStreamer(self, didEmit: event)
        eventChannel.yield(event)
        if case .stateChanged(let state) = event, state.isFinal {
            if state == .done { eventChannel.yield(.progress(progress)) }
            eventChannel.finish()
        }
    }

    private func release() {
        timer?.cancel()
        let connection = core.withLock { core -> (any StreamConnection)? in
            core.generation += 1
            core.stopRequested = true
            core.run = false
            defer { core.connection = nil }
            return core.connection
        }
        connection?.cancel()
        playbackWake.signal()
    }

    // MARK: - Timer: inactivity, progress

    private func startTimer() {
        let timer = DispatchSource.makeTimerSource(queue: control)
        let interval = min(configuration.progressInterval, 0.25)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [self] in tick() }
        self.timer = timer
        timer.resume()
    }

    private func tick() {
        let now = MonotonicTime.now()
        let (stalled, progress, playing) = core.withLock { core -> (Bool, AudioStreamerProgress, Bool) in
            let waiting = core.connection != nil && !core.isBackpressured && !core.streamEnded
                && core.machine.state != .paused && !core.machine.isReconnectPending
            if !waiting { core.lastActivity = now }
            let stalled = waiting && Double(now - core.lastActivity) / 1e9 >= configuration.inactivityTimeout
            if stalled { core.lastActivity = now }
            return (stalled, Self.progress(of: core), core.machine.state == .playing)
        }
        if stalled {
            send(.connectionFailed(AudioStreamerError(.timedOut, "no data from \(source) for \(formatSeconds(configuration.inactivityTimeout))")))
        }
        if playing { emit(.progress(progress)) }
    }

    static func progress(of core: PlayerCore) -> AudioStreamerProgress {
        let rate = Double(core.sampleRate ?? 0)
        return AudioStreamerProgress(
            position: rate > 0 ? Double(core.positionFrame) / rate : 0,
            duration: core.properties.duration,
            buffered: core.bufferedSeconds,
            bitRate: core.properties.bitRate?.bitsPerSecond,
            bytesReceived: core.bytesReceived)
    }
}

/// Told of an `AudioStreamer`'s events as they happen (optional sugar over `events`).
public protocol AudioStreamerDelegate: AnyObject, Sendable {
    /// Called on the streamer's private queue, in order.
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent)
}

/// "10 s", "0.5 s".
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
