/// Seeking: where a time is, and whether the queue already holds it.
extension AudioStreamer {
    /// The playback thread made the decoder: a start time can now be sought exactly.
    func decoderBecameReady() {
        let (plan, ready) = core.withLock { core -> (PlayerStateMachine.SeekPlan?, Bool) in
            guard let start = core.pendingStart else { return (nil, false) }
            core.pendingStart = nil
            // A stream that cannot seek plays from its start.
            let plan = try? planSeek(&core, to: start)
            return (plan, checkReady(&core))
        }
        if let plan { send(.seek(plan)) }
        if ready { send(.bufferReady) }
        playbackWake.signal()
    }

    /// Works out a seek to `time` seconds and moves the queue, the feed and the playback
    /// thread's targets accordingly (under the lock); the state machine does the rest.
    func planSeek(_ core: inout PlayerCore, to time: Double) throws(AudioStreamerError) -> PlayerStateMachine.SeekPlan {
        let state = core.machine.state
        guard state != .initialized, !state.isFinal else {
            throw AudioStreamerError(.seek, "cannot seek: the stream is \(state)")
        }
        guard let rate = core.sampleRate, let format = core.properties.format, time.isFinite else {
            throw AudioStreamerError(.seek, "cannot seek yet: the stream's format is not known")
        }
        var target = max(time, 0)
        if let duration = core.properties.duration { target = min(target, duration) }
        let presentation = Int64(target * Double(rate))
        let raw = core.trim.rawFrame(ofPresentationFrame: presentation)
        let primingFrames = Int64(core.primingPackets * format.framesPerPacket)

        core.flushGeneration += 1
        core.seekFrame = raw
        core.positionFrame = presentation
        core.readyAnnounced = false
        core.readyThreshold = configuration.startThreshold
        core.isUnderrun = false

        if core.queue?.rewind(toFrame: raw, before: core.primingPackets) != nil {
            return .buffered
        }
        guard core.totalSize != nil || isFile else {
            throw AudioStreamerError(.seek, "cannot seek in a live stream")
        }
        core.queue?.removeAll()
        core.dropBeforeFrame = max(raw - primingFrames, 0)
        if core.rangesSupported == false, raw >= core.nextFrameGuess, core.connection != nil {
            // No ranges here: a forward seek reads on and drops what comes before the target.
            return .buffered
        }
        // Stop the old connection's bytes now; the new one starts on the control queue.
        core.generation += 1
        core.connection?.cancel()
        core.connection = nil
        let primedTime = Double(max(raw - primingFrames, 0)) / Double(rate)
        guard core.rangesSupported != false, let point = core.parser.seekTable.offset(forTime: primedTime) else {
            core.nextFrameGuess = 0
            core.positionsEstimated = false
            return .network(offset: 0)
        }
        core.nextFrameGuess = point.frame
        core.positionsEstimated = !point.isExact
        return .network(offset: point.offset)
    }
}
