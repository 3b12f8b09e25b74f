/// Seeking: planned by `SeekPlanner` from what the control side knows, then carried out by the
/// packet queue (a rewind) or the network side (read on, or a new connection), each under its
/// own lock; the state machine does the rest.
extension AudioStreamer {
    /// Moves playback to `time` seconds from the start: within the buffered audio without
    /// touching the network, else with a new range request from the offset the seek table
    /// gives. Lands on the exact sample where the frame index covers the target, within the
    /// table's estimate elsewhere. Before `play()`, sets where playing starts (as
    /// `configuration.startTime` does); a seek made before the stream's decoder exists waits
    /// for it. Throws `.seek` when the stream cannot seek (finished, or a live stream for a
    /// target not queued), and when `time` is past the stream's duration as `properties` tell
    /// it (the target is outside the stream: nothing moves); a start time that waited for the
    /// duration to be known goes to the end instead.
    public func seek(to time: Double) throws(AudioStreamerError) {
        let planned = try control.withLock {
            control throws(AudioStreamerError) -> (SeekPlanner.Target, SeekPlanner.Stream, NetworkSide?)? in
            let state = control.machine.state
            guard !state.isFinal else {
                throw AudioStreamerError(.seek, "cannot seek: the stream is \(state)", url: location.url, path: location.path)
            }
            try SeekPlanner.checkInside(time, duration: control.properties.duration)
            // Before the decoder exists the gapless trim is unknown: the seek waits for it.
            guard state != .initialized, let stream = control.seekStream else {
                control.pendingStart = max(time, 0)
                return nil
            }
            return (try SeekPlanner.target(time: time, stream: stream), stream, control.network)
        }
        guard let (target, stream, network) = planned else { return send(.seekDeferred) }
        send(.seek(try carryOut(target, stream: stream, network: network)))
    }

    /// Moves playback to `duration` from the start, e.g. `.seconds(90)` (see `seek(to:)` taking
    /// seconds).
    public func seek(to duration: Duration) throws(AudioStreamerError) {
        try seek(to: duration.seconds)
    }

    /// Seeks to the time that waited for the decoder; a stream that cannot seek plays from
    /// where it starts.
    func seekToPendingStart() {
        let planned = control.withLock { control -> (Double, SeekPlanner.Stream, NetworkSide?)? in
            guard let time = control.pendingStart, let stream = control.seekStream else { return nil }
            control.pendingStart = nil
            return (time, stream, control.network)
        }
        do throws(AudioStreamerError) {
            guard let (time, stream, network) = planned else { throw AudioStreamerError(.seek, "nothing to seek to") }
            send(.seek(try carryOut(try SeekPlanner.target(time: time, stream: stream), stream: stream, network: network)))
        } catch {
            send(.startSeekUnavailable)
        }
    }

    /// Serves `target` from the queue if it holds it, else by the network side; returns how.
    private func carryOut(
        _ target: SeekPlanner.Target, stream: SeekPlanner.Stream,
        network: NetworkSide?
    ) throws(AudioStreamerError) -> PlayerStateMachine.SeekPlan {
        let plan = try queue.withLock { queue throws(AudioStreamerError) -> SeekPlanner.Plan in
            let plan = try SeekPlanner.plan(
                target, isBuffered: queue.holds(frame: target.rawFrame, priming: stream.primingPackets),
                stream: stream)
            if case .buffered = plan {
                _ = queue.rewind(toFrame: target.rawFrame, priming: stream.primingPackets, position: target.position)
            }
            return plan
        }
        queue.wakeConsumer()
        switch plan {
        case .buffered:
            return .buffered
        case .network:
            guard let network else { throw AudioStreamerError(.seek, "cannot seek: the stream is stopped") }
            return network.retarget(target)
        }
    }
}
