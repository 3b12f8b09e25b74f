import Dispatch
import Synchronization

/// The control side: feeding the state machine and carrying out its actions on the control
/// queue, what the network side tells, events, the inactivity and progress timer.
extension AudioStreamer {
    /// Feeds one input to the state machine through its shell on the control queue (so the
    /// actions of one input are carried out before the next input's) and carries out its
    /// actions there.
    func send(_ input: PlayerStateMachine.Input) {
        controlQueue.async { [self] in
            if takesPlaylistFailure(input) { return }
            control.feed({ $0.machine.handle(input) }, perform: perform)
        }
    }

    /// Feeds one input to the state machine at once, on the calling thread, so that `state`
    /// tells its outcome when this returns; its actions are carried out on the control queue,
    /// after what waits there (which a final state then ignores).
    func sendNow(_ input: PlayerStateMachine.Input) {
        let actions = control.withLock { $0.machine.handle(input) }
        guard !actions.isEmpty else { return }
        controlQueue.async { [self] in
            for action in actions { perform(action) }
        }
    }

    private func perform(_ action: PlayerStateMachine.Action) {
        switch action {
        case .connect:
            start()
        case .reconnect:
            control.withLock { $0.network }?.reconnect()
        case .finishStream:
            control.withLock { $0.network }?.finish()
        case .seekConnect(let offset):
            control.withLock { $0.network }?.connect(from: offset)
        case .seekBuffered:
            break  // the queue and the playback side were moved by `seek(to:)`
        case .disconnect:
            control.withLock { $0.network }?.disconnect()
        case .resumeProducer:
            control.withLock { $0.network }?.resumeProducer()
        case .awaitBuffer(let seconds, let id):
            let ready = queue.withLock { queue in
                queue.armReady(seconds: seconds, id: id)
                return queue.readyFired()
            }
            if let ready { send(.bufferReady(id: ready)) }
        case .seekToStart:
            seekToPendingStart()
        case .startOutput, .resumeOutput:
            control.withLock { $0.playback }?.post(.run(true))
        case .pauseOutput:
            control.withLock { $0.playback }?.post(.run(false))
        case .scheduleReconnect(let delay):
            controlQueue.asyncAfter(deadline: .now() + delay) { [self] in send(.reconnectDue) }
        case .emit(let event):
            emit(event)
        case .release:
            release()
        }
    }

    /// Starts the playback thread, the network side and the timer, and connects.
    private func start() {
        let recorder = configuration.recording.map { recording in
            StreamRecorder(recording) { [self] event in controlQueue.async { [self] in emit(event) } }
        }
        let network = makeNetworkSide(for: location, recorder: recorder)
        control.withLock { control in
            control.playback = PlaybackLoop.start(for: self, queue: queue, configuration: configuration, volume: control.volume)
            control.network = network
            control.recorder = recorder
            control.expectingSince = MonotonicTime.now()
        }
        startTimer()
        network.connect(from: 0)
    }

    /// A network side reading `place` (the URL or file played, or a playlist's entry) into the
    /// queue, its packets stored to `recorder`: the URL played through the download's readers,
    /// for a player of a download.
    func makeNetworkSide(for place: AudioLocation, recorder: StreamRecorder?) -> NetworkSide {
        if let download, place == location {
            return makeNetworkSide(reading: DownloadAudioSource(download: download, url: source), recorder: recorder)
        }
        return makeNetworkSide(
            reading: makeAudioSource(place, configuration: configuration, engine: engine, loginOrigin: location), recorder: recorder)
    }

    /// A network side reading `source` into the queue, its packets stored to `recorder`.
    func makeNetworkSide(reading source: any AudioSource, recorder: StreamRecorder?) -> NetworkSide {
        var hints = AudioStreamHints()
        if let hint = configuration.fileTypeHint {
            if hint.contains("/") { hints.contentType = hint } else { hints.fileExtension = hint }
        }
        return NetworkSide(source: source, queue: queue, hints: hints, rawTap: configuration.rawTap, recorder: recorder, streamer: self)
    }

    /// Hands an event to the readers and the delegate; ends the stream after a final state,
    /// which waits until the recording, if any, has closed its last file and told of it, for
    /// its `closeTimeout` at most (a disk that hangs does not hold up the end: the recording is
    /// then told as failed).
    func emit(_ event: AudioStreamerEvent) {
        if case .stateChanged(let state) = event, state.isFinal, let recorder = control.withLock({ $0.recorder.take() }) {
            let final = FinalEvent()
            recorder.close { [self] in
                controlQueue.async { [self] in
                    if final.claim() { emit(event) }
                }
            }
            let timeout = configuration.recording?.closeTimeout.seconds ?? 0
            controlQueue.asyncAfter(deadline: .now() + timeout) { [self] in
                guard final.claim() else { return }
                let seconds = formatSeconds(timeout)
                emit(
                    .recordingFailed(
                        AudioStreamerError(
                            .recording, "the recording's disk did not finish its writes within \(seconds): its last file may be incomplete")
                    ))
                emit(event)
            }
            return
        }
        guard case .stateChanged(let state) = event, state.isFinal else {
            delegate?.audioStreamer(self, didEmit: event)
            eventChannel.yield(event)
            return
        }
        // The final state is the last event: the last progress (where the end was heard) before it.
        if state == .done {
            let last = AudioStreamerEvent.progress(progress)
            delegate?.audioStreamer(self, didEmit: last)
            eventChannel.yield(last)
        }
        delegate?.audioStreamer(self, didEmit: event)
        eventChannel.finish(after: event)
        configuration.keptHLS?.release(self)
    }

    /// Stops the timer, the network side and the playback thread, and lets go of both sides.
    private func release() {
        control.withLock { $0.isTicking = false }
        let (network, playback) = control.withLock { control in
            defer {
                control.network = nil
                control.playback = nil
            }
            return (control.network, control.playback)
        }
        network?.stop()
        playback?.post(.stop)
    }

    // MARK: - What the network side tells

    /// A connection answered: whether the network can now fetch from another offset.
    func networkAnswered(canSeek: Bool, isLive: Bool) {
        control.withLock { $0.canSeekNetwork = canSeek }
        send(.answered(isLive: isLive))
    }

    /// The parser found new properties: known at once (before the playback side can see a
    /// new format in the queue, so a seek planned for it knows the format too).
    func networkLearned(_ properties: AudioStreamProperties) {
        control.withLock { $0.properties = properties }
    }

    /// Tells the readers of the properties the parser found (in order with the other events).
    func networkFound(_ properties: AudioStreamProperties) {
        controlQueue.async { [self] in emit(.properties(properties)) }
    }

    /// A connection answered with a radio station's facts.
    func networkFound(_ station: StationInfo) {
        let recorder = control.withLock { control in
            control.station = station
            return control.recorder
        }
        recorder?.stationFound(station)
        controlQueue.async { [self] in emit(.station(station)) }
    }

    /// The playback side is heard playing the packet title `id` starts with.
    func playbackReachedTitle(_ id: Int) {
        guard let title = queue.withLock({ $0.title(id) }) else { return }
        controlQueue.async { [self] in
            control.withLock { $0.title = title }
            emit(.titleChanged(title))
        }
    }

    // MARK: - Timer: inactivity, progress

    /// Ticks on the control queue from the first connect to the release: every second, or at
    /// the progress interval asked for (10 ms to 250 ms).
    private func startTimer() {
        let interval = configuration.progressInterval.map { min(max($0.seconds, 0.01), 0.25) } ?? 1
        control.withLock { $0.isTicking = true }
        scheduleTick(after: interval)
    }

    private func scheduleTick(after interval: Double) {
        controlQueue.asyncAfter(deadline: .now() + interval) { [self] in
            guard control.withLock({ $0.isTicking }) else { return }
            tick()
            scheduleTick(after: interval)
        }
    }

    private func tick() {
        let now = MonotonicTime.now()
        let lastByte = queue.withLock { $0.lastByteTime }
        let timeout = configuration.inactivityTimeout.seconds
        let (stalled, playing) = control.withLock { control -> (Bool, Bool) in
            guard control.machine.isExpectingData else {
                control.expectingSince = now
                return (false, control.machine.state == .playing)
            }
            let stalled = Double(now - max(control.expectingSince, lastByte)) / 1e9 >= timeout
            if stalled { control.expectingSince = now }
            return (stalled, control.machine.state == .playing)
        }
        if stalled {
            // The network side's: a playlist's entry, or what was played.
            let location = control.withLock { $0.network?.source.location } ?? self.location
            send(
                .connectionFailed(
                    AudioStreamerError(
                        .timedOut, "no data from \(location) for \(formatSeconds(timeout))",
                        url: location.url, path: location.path)))
        }
        if playing, configuration.progressInterval != nil { emit(.progress(progress)) }
    }
}

/// Whether the final event, held for a recording to close, was emitted: by the recording's
/// close or by the timeout, whichever came first.
private final class FinalEvent: Sendable {
    private let isEmitted = Atomic(false)

    /// True for the first caller only: it emits the final event.
    func claim() -> Bool {
        !isEmitted.exchange(true, ordering: .relaxed)
    }
}

/// "10 s", "0.5 s".
func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
