import SlipstreamHTTP

/// The network side: opening connections and feeding their bytes through the parser into the
/// packet queue, with backpressure. Runs on the HTTP engine's thread (or a file reader's).
extension AudioStreamer: StreamFeed {
    enum ConnectReason { case start, reconnect, seek }

    /// Opens a connection from `offset`, replacing the current one.
    func connect(from offset: Int64, reason: ConnectReason) {
        let (generation, old, etag, isLive) = core.withLock { core in
            core.generation += 1
            core.isBackpressured = false
            core.connectionHasData = false
            core.streamEnded = false
            core.lastActivity = MonotonicTime.now()
            defer { core.connection = nil }
            return (core.generation, core.connection, core.strongETag, core.totalSize == nil && reason != .start)
        }
        old?.cancel()
        let connection: any StreamConnection
        if isFile {
            connection = FileStreamReader(path: source, offset: offset, feed: self, generation: generation)
        } else {
            var request = HTTPRequest(url: source)
            request.connectTimeout = configuration.connectTimeout
            request.lowSpeedLimit = 0
            request.proxy = configuration.proxy
            request.receiveBufferSize = 16 * 1024
            for header in configuration.headers { request.headers.add(name: header.name, value: header.value) }
            // A live stream (no length) is reopened from "now"; a file from the byte needed.
            let ranged = offset > 0 && !isLive
            if ranged {
                request.range = HTTPRequest.ByteRange(start: offset)
                if let etag { request.headers.add(name: "If-Range", value: etag) }
            }
            let sink = HTTPStreamSink(feed: self, generation: generation, requestedOffset: ranged ? offset : nil, url: source)
            connection = engine.start(request, sink: sink)
        }
        let stale = core.withLock { core -> Bool in
            guard core.generation == generation else { return true }
            core.connection = connection
            return false
        }
        if stale { connection.cancel() }
    }

    func accept(_ answer: StreamAnswer, generation: Int) -> AudioStreamerError? {
        core.withLock { core -> AudioStreamerError? in
            guard core.generation == generation else {
                return AudioStreamerError(.network, "a replaced connection")
            }
            if let supported = answer.rangesSupported { core.rangesSupported = supported }
            if core.totalSize == nil || answer.totalSize != nil { core.totalSize = answer.totalSize ?? core.totalSize }
            if let etag = answer.strongETag { core.strongETag = etag }
            if answer.offset != core.parser.nextByteOffset {
                // A seek that landed, or a 200 answering a range request: the parser starts
                // over at the answer's first byte. Without a range, everything before the
                // packet needed is read and dropped (`dropBeforeFrame`).
                if answer.offset == 0, core.totalSize != nil {
                    if core.dropBeforeFrame == nil { core.dropBeforeFrame = core.nextFrameGuess }
                    core.nextFrameGuess = 0
                    core.positionsEstimated = false
                }
                core.parser.discontinuity(at: answer.offset)
            }
            return nil
        }
    }

    func consume(_ bytes: UnsafeRawBufferPointer, generation: Int) -> HTTPSinkDecision {
        var firstData = false
        var ready = false
        var fatal: AudioStreamerError?
        var propertiesChanged: AudioStreamProperties?
        let decision = core.withLock { core -> HTTPSinkDecision in
            guard core.generation == generation else { return .abort(HTTPError(.cancelled, url: source, message: "replaced")) }
            if let queue = core.queue, !queue.canStore(bytes.count) {
                core.isBackpressured = true
                // A buffer smaller than the threshold is ready when it is full.
                ready = checkReady(&core)
                return .pause
            }
            let offset = core.parser.nextByteOffset
            configuration.rawTap?(offset, bytes)
            core.bytesReceived += Int64(bytes.count)
            core.lastActivity = MonotonicTime.now()
            if !core.connectionHasData {
                core.connectionHasData = true
                firstData = true
            }
            var sink = QueueFeedSink(taking: &core, limit: configuration.bufferLimit)
            do throws(AudioParserError) {
                try core.parser.parse(bytes, into: &sink)
            } catch {
                sink.failure = AudioStreamerError(parserError: error, source: AudioLocation(source))
            }
            sink.store(into: &core)
            propertiesChanged = sink.changedProperties
            if let failure = sink.failure {
                core.connection = nil
                core.generation += 1
                fatal = failure
                return .abort(HTTPError(.cancelled, url: source, message: failure.message))
            }
            ready = checkReady(&core)
            return .proceed
        }
        if let fatal {
            send(.fatal(fatal))
            return decision
        }
        if firstData { send(.dataArrived) }
        if let propertiesChanged { control.async { [self] in emit(.properties(propertiesChanged)) } }
        if ready { send(.bufferReady) }
        playbackWake.signal()
        return decision
    }

    func finish(_ error: AudioStreamerError?, generation: Int) {
        var ready = false
        var failure: AudioStreamerError?
        let current = core.withLock { core -> Bool in
            guard core.generation == generation else { return false }
            core.connection = nil
            if error != nil { return true }
            core.streamEnded = true
            var sink = QueueFeedSink(taking: &core, limit: configuration.bufferLimit)
            do throws(AudioParserError) {
                try core.parser.finish(into: &sink)
            } catch {
                sink.failure = AudioStreamerError(parserError: error, source: AudioLocation(source))
            }
            sink.store(into: &core)
            failure = sink.failure
            if failure == nil, (core.queue?.appendedCount ?? 0) == 0 {
                failure = AudioStreamerError(.noAudioData, "no audio found in \(source)")
            }
            core.queue?.isEnded = true
            ready = checkReady(&core)
            return true
        }
        guard current else { return }
        if let failure {
            send(.fatal(failure))
        } else if let error {
            send(.connectionFailed(error))
        } else {
            send(.connectionCompleted)
            if ready { send(.bufferReady) }
        }
        playbackWake.signal()
    }

    /// Whether enough audio is queued to (re)start (the threshold, a full queue, or the end of
    /// the stream), announcing it once (never while a start time is still to be sought).
    func checkReady(_ core: inout PlayerCore) -> Bool {
        guard !core.readyAnnounced, core.pendingStart == nil, let queue = core.queue else { return false }
        let enough = core.bufferedSeconds >= core.readyThreshold || core.isBackpressured
            || (queue.isEnded && queue.unplayedCount > 0)
        guard enough else { return false }
        core.readyAnnounced = true
        return true
    }
}
