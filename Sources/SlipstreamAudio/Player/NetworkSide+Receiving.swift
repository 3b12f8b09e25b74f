import Synchronization

/// The network side on the source's thread: a connection's answer, its bytes (backpressure,
/// raw tap, parser, packet queue) and its end.
extension NetworkSide {
    /// What one parse call came to, told to the streamer once the lock is let go.
    private struct Parsed {
        var isFirstData = false
        var properties: AudioStreamProperties?
        var readyWatermark: Int?
        var failure: AudioStreamerError?
        /// The connection's reads start or stop gathering (on `connection`).
        var gatherReads: ReadGathering.Change?
        var connection: (any AudioSourceConnection)?
        /// The parser wants its next bytes from this offset, not from the ones after these.
        var relocation: Int64?
        /// A seek's search probes again from this offset.
        var probe: Int64?
    }

    /// Connection `generation` answered; `.stop` when it was replaced meanwhile.
    func opened(_ answer: AudioSourceAnswer, generation: Int) -> AudioSourceDecision {
        let totalSize = state.withLock { state -> Int64?? in
            guard state.generation == generation, !state.isStopped else { return .none }
            if let supported = answer.rangesSupported { state.rangesSupported = supported }
            state.isLive = answer.isLive
            state.totalSize = answer.totalSize ?? state.totalSize
            if let size = state.totalSize { state.parser.learnStreamSize(size) }
            if let duration = answer.duration { state.parser.learnStreamDuration(duration) }
            state.seekOffset = nil
            state.seekTime = nil
            state.seeksByTime = answer.seeksByTime
            if let start = answer.startTime {
                // A connection opened at a time: its first packet starts where the source says.
                // (A first connection that starts late follows on: nothing was parsed before.)
                if answer.offset != state.parser.nextByteOffset || state.format != nil { state.parser.discontinuity(at: answer.offset) }
                state.parser.placeNextPacket(atSeconds: start.seconds)
                if let rate = state.format?.sampleRate {
                    state.nextFrameGuess = Int64(clamping: start.seconds * Double(rate), rounding: .toNearestOrAwayFromZero)
                }
                state.positionsEstimated = !start.isExact && !state.parser.datesPackets
            } else if answer.offset != state.parser.nextByteOffset {
                // A seek that landed, or a 200 answering a range request: the parser starts over
                // at the answer's first byte. Without a range, everything before the packet
                // needed is read and dropped (`dropBeforeFrame`).
                if answer.offset == 0, state.totalSize != nil {
                    if state.dropBeforeFrame == nil { state.dropBeforeFrame = state.nextFrameGuess }
                    state.nextFrameGuess = 0
                    state.positionsEstimated = false
                }
                state.parser.discontinuity(at: answer.offset)
            }
            return .some(state.totalSize)
        }
        guard case .some(let size) = totalSize else { return .stop }
        streamer.networkAnswered(
            canSeek: answer.seeksByTime || !answer.isLive && (size != nil || answer.rangesSupported == true), isLive: answer.isLive)
        return .proceed
    }

    /// Bytes of the connection `receiver` stands for, at stream offset `offset`: counted and
    /// parsed when the queue has room for them, else left for later (`.pause`).
    func received(_ bytes: UnsafeRawBufferPointer, at offset: Int64, receiver: ConnectionReceiver) -> AudioSourceDecision {
        guard receiver.isCurrent.load(ordering: .relaxed) else { return .stop }
        let (admission, ready, buffered, heard) = queue.withLock { queue in
            let admission = queue.admit(bytes.count, now: MonotonicTime.now())
            return (admission, admission == .accept ? nil : queue.readyFired(), queue.unplayedSeconds, queue.isOutputHeard)
        }
        if case .pause(let episode) = admission {
            if let episode { streamer.send(.producerPaused(episode: episode)) }
            // A queue smaller than the start threshold is ready when it is full.
            if let ready { streamer.send(.bufferReady(id: ready)) }
            return .pause
        }
        rawTap?(offset, bytes)
        let parsed = state.withLock { state -> Parsed? in
            guard state.generation == receiver.generation, !state.isStopped else { return nil }
            var parsed = Parsed(isFirstData: !state.connectionHasData)
            parsed.gatherReads = ReadGathering.change(
                isLive: state.isLive, gathered: &state.readsGathered, buffered: buffered, heard: heard)
            if parsed.gatherReads != nil { parsed.connection = state.connection }
            state.connectionHasData = true
            parse(&state, &parsed) { (parser, sink) throws(AudioParserError) in try parser.parse(bytes, into: &sink) }
            if parsed.failure != nil { _ = drop(&state) }
            // An MP4 whose index follows its audio: over the audio with a range request, and
            // back to it once the index is read. Unless the server said it answers no ranges:
            // one that does not answers the jump from byte 0, and the parser starts over.
            if state.parser.prefersJump, state.rangesSupported != false { state.parser.skipUnread() }
            let next = state.parser.nextByteOffset
            if parsed.failure == nil, next != offset + Int64(bytes.count) { parsed.relocation = next }
            return parsed
        }
        guard let parsed else { return .stop }
        if let probe = parsed.probe, parsed.failure == nil {
            // A seek's search probes elsewhere: this connection is done.
            report(parsed)
            connect(from: probe, replacing: receiver.generation)
            return .stop
        }
        if let gather = parsed.gatherReads { parsed.connection?.gatherReads(every: gather.interval) }
        report(parsed)
        if let relocation = parsed.relocation {
            connect(from: relocation, replacing: receiver.generation)
            return .stop
        }
        return parsed.failure == nil ? .proceed : .stop
    }

    /// Metadata the source of connection `generation` found beside the bytes: the station's
    /// facts are told at once; a title waits for the packet it starts with (`NetworkSink`).
    func found(_ metadata: AudioSourceMetadata, generation: Int) {
        switch metadata {
        case .station(let station):
            guard state.withLock({ $0.generation == generation && !$0.isStopped }) else { return }
            streamer.networkFound(station)
        case .title(let title, let offset):
            state.withLock { state in
                guard state.generation == generation, !state.isStopped, title != state.lastTitle else { return }
                state.lastTitle = title
                // Titles a packet has not reached yet are few; a flood of them keeps the newest.
                if state.pendingTitles.count == PacketQueue.keptTitles { state.pendingTitles.removeFirst() }
                state.pendingTitles.append((offset, title))
            }
        }
    }

    /// Connection `generation` (nil: the current one) ended, with `error` or whole. The end
    /// of a live stream's response is not the stream's: the state machine says whether to
    /// reconnect or `finish()`.
    func end(_ error: AudioStreamerError?, generation: Int?) {
        let liveEnd = state.withLock { state -> Bool? in
            guard generation == nil || state.generation == generation, !state.isStopped else { return nil }
            state.connection = nil
            state.receiver = nil
            return error == nil && state.isLive
        }
        switch liveEnd {
        case nil:
            return
        case true:
            let location = source.location
            streamer.send(
                .liveStreamEnded(AudioStreamerError(.network, "the live stream \(location) ended", url: location.url, retryable: true)))
        case false:
            if let error {
                streamer.send(.connectionFailed(error))
            } else if let probe = searchEnded() {
                connect(from: probe)
            } else {
                finish(generation: generation)
            }
        }
    }

    /// A seek's probe reached the stream's end with no packet placed: where to probe next
    /// (`nil` without a search, or when the search reads on: the stream ends).
    private func searchEnded() -> Int64? {
        state.withLock { state in
            guard case .probe(let offset) = state.search?.ended() else {
                state.search = nil
                return nil
            }
            state.seekOffset = offset
            return offset
        }
    }

    /// No more bytes will come from connection `generation` (nil: whichever was last): the
    /// parser's last packets go to the queue, which is marked ended (a stream with no packet
    /// at all fails).
    func finish(generation: Int? = nil) {
        let parsed = state.withLock { state -> Parsed? in
            guard generation == nil || state.generation == generation, !state.isStopped else { return nil }
            var parsed = Parsed()
            parse(&state, &parsed) { (parser, sink) throws(AudioParserError) in try parser.finish(into: &sink) }
            let (appended, ready) = queue.withLock { queue in
                queue.markEnded()
                return (queue.appendedCount, queue.readyFired())
            }
            if parsed.failure == nil, appended == 0 {
                let location = source.location
                parsed.failure = AudioStreamerError(.noAudioData, "no audio found in \(location)", url: location.url, path: location.path)
            }
            parsed.readyWatermark = parsed.readyWatermark ?? ready
            return parsed
        }
        guard let parsed else { return }
        if parsed.failure == nil { streamer.send(.connectionCompleted) }
        report(parsed)
    }

    /// Runs the parser (`body`: a parse or the finish) with a sink into the queue, and keeps
    /// what the sink learned.
    private func parse(
        _ state: inout State, _ parsed: inout Parsed,
        _ body: (inout AudioStreamParser, inout NetworkSink) throws(AudioParserError) -> Void
    ) {
        var sink = NetworkSink(
            queue: queue, streamer: streamer, recorder: recorder, nextFrameGuess: state.nextFrameGuess,
            dropBeforeFrame: state.dropBeforeFrame, positionsEstimated: state.positionsEstimated, isLive: state.isLive,
            formatIndex: state.formatIndex, format: state.format,
            pendingTitles: state.pendingTitles, lastTitle: state.lastTitle, search: state.search)
        state.pendingTitles = []
        do throws(AudioParserError) {
            try body(&state.parser, &sink)
        } catch {
            sink.failure = AudioStreamerError(parserError: error, source: source.location)
        }
        state.nextFrameGuess = sink.nextFrameGuess
        state.dropBeforeFrame = sink.dropBeforeFrame
        state.formatIndex = sink.formatIndex
        state.format = sink.format
        state.pendingTitles = sink.pendingTitles
        state.lastTitle = sink.lastTitle
        state.search = sink.search
        if let probe = sink.probe {
            state.seekOffset = probe
            parsed.probe = probe
        }
        parsed.properties = sink.changedProperties
        parsed.readyWatermark = sink.readyWatermark
        parsed.failure = parsed.failure ?? sink.failure
    }

    /// Tells the streamer what a parse came to, in order, and wakes the playback side.
    private func report(_ parsed: Parsed) {
        if let failure = parsed.failure {
            streamer.send(.fatal(failure))
            return
        }
        if parsed.isFirstData { streamer.send(.dataArrived) }
        if let properties = parsed.properties {
            source.streamFound(properties)
            streamer.networkFound(properties)
        }
        if let ready = parsed.readyWatermark { streamer.send(.bufferReady(id: ready)) }
        queue.wakeConsumer()
    }
}

/// One connection's receiver: it hands the network side the calls of its connection, and
/// stops the bytes of a replaced one before they reach the raw tap.
final class ConnectionReceiver: AudioSourceReceiver {
    private let network: NetworkSide
    /// The connection's number.
    let generation: Int
    /// Cleared (under the network side's lock) when the connection is replaced or closed.
    let isCurrent = Atomic(true)

    init(network: NetworkSide, generation: Int) {
        self.network = network
        self.generation = generation
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        network.opened(answer, generation: generation)
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        network.received(bytes, at: offset, receiver: self)
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {
        network.found(metadata, generation: generation)
    }

    func sourceEnded(_ error: AudioStreamerError?) {
        network.end(error, generation: generation)
    }
}
