import Synchronization

/// The network side of an `AudioStreamer`: it owns the source's connection and the parser, and
/// puts the packets it finds into the packet queue (the one object it shares with the playback
/// side). Bytes come on the source's thread; commands (connect, retarget for a seek, resume,
/// disconnect, stop) from the streamer; its state is its own, behind its own lock, and it tells
/// the streamer what happened as state-machine inputs. The raw tap runs outside any lock.
final class NetworkSide: Sendable {
    struct State {
        var parser: AudioStreamParser
        var connection: (any AudioSourceConnection)?
        var receiver: ConnectionReceiver?
        /// Numbers the connections; calls from an older one are ignored.
        var generation = 0
        /// The current connection has delivered a byte.
        var connectionHasData = false
        /// The current connection's answer said the stream is live.
        var isLive = false
        /// How long the current connection's reads gather (`ReadGathering`); nil: not at all.
        var readsGathered: Duration?
        var totalSize: Int64?
        /// Whether the source answers ranges; nil until a range was asked for.
        var rangesSupported: Bool?
        /// Where the next connection starts when none is given: a seek's offset until its
        /// connection answers, else the parser's next byte.
        var seekOffset: Int64?
        /// The time the next connection starts at, for a source that seeks by time: a seek's
        /// until its connection answers.
        var seekTime: Double?
        /// The source seeks by time (`AudioSourceAnswer.seeksByTime`), as its last answer said.
        var seeksByTime = false
        /// The stream frame of the next packet, when the parser cannot say (after an estimated
        /// seek or a reconnect to a live stream).
        var nextFrameGuess: Int64 = 0
        /// The frames of the packets now arriving are estimates: no gapless trimming for them.
        var positionsEstimated = false
        /// Packets ending before this stream frame are dropped as they come (a seek target,
        /// less the packets the decoder needs to prime).
        var dropBeforeFrame: Int64?
        /// The queue's index of the format the parser is in, and that format.
        var formatIndex: Int?
        var format: AudioFormat?
        /// Titles the source told of whose first byte no packet has reached yet, oldest first,
        /// with the stream offset each starts at.
        var pendingTitles: [(offset: Int64, title: StreamTitle)] = []
        /// The title told last, on any connection (a station repeats it; a reconnect tells it again).
        var lastTitle: StreamTitle?
        /// A seek being found by probing (Ogg), until a probe lands just before its target.
        var search: SeekSearch?
        var isStopped = false
    }

    let state: Mutex<State>
    let source: any AudioSource
    let queue: SharedPacketQueue
    let rawTap: (@Sendable (_ offset: Int64, _ bytes: UnsafeRawBufferPointer) -> Void)?
    /// Given every packet stored, with the title it starts (it never waits for its disk).
    let recorder: StreamRecorder?
    /// The streamer, told of what happens (it drops this side at release, ending the cycle).
    let streamer: AudioStreamer

    /// A network side reading `source` into `queue` for `streamer`, the parser helped by
    /// `hints`, every slice given to `rawTap` first and every packet stored to `recorder`.
    init(
        source: any AudioSource, queue: SharedPacketQueue, hints: AudioStreamHints,
        rawTap: (@Sendable (Int64, UnsafeRawBufferPointer) -> Void)?, recorder: StreamRecorder?, streamer: AudioStreamer
    ) {
        state = Mutex(State(parser: AudioStreamParser(hints: hints)))
        self.source = source
        self.queue = queue
        self.rawTap = rawTap
        self.recorder = recorder
        self.streamer = streamer
    }

    // MARK: - Commands

    /// Opens a connection from `offset` (nil: where the stream is to go on), replacing the
    /// current one; with `generation`, only while connection `generation` is the current one
    /// (the parser's own move elsewhere must not undo a seek's connection made meanwhile).
    func connect(from offset: Int64?, replacing generation: Int? = nil) {
        let old = state.withLock { state -> (any AudioSourceConnection)? in
            guard !state.isStopped, generation == nil || generation == state.generation else { return nil }
            let old = drop(&state)
            state.connectionHasData = false
            // A new connection counts its offsets anew (a live stream's from "now").
            state.pendingTitles = []
            let receiver = ConnectionReceiver(network: self, generation: state.generation)
            state.receiver = receiver
            queue.withLock { $0.producerConnected(now: MonotonicTime.now()) }
            let start = offset ?? state.seekOffset ?? state.parser.nextByteOffset
            let request = AudioSourceRequest(offset: start, time: state.seekTime)
            state.connection = source.open(request, receiver: self.receiver(receiver, from: start, state: state))
            return old
        }
        old?.cancel()
    }

    /// Reconnects after a failure from where the stream is to go on (a source that seeks by
    /// time: at the time of the next frame), unless every byte of a stream of known size was
    /// received (a connection that stalled after its last byte): then the stream ends there.
    func reconnect() {
        let isWhole = state.withLock { state -> Bool in
            if state.seeksByTime, state.seekTime == nil, let rate = state.format?.sampleRate, rate > 0 {
                state.seekTime = Double(state.nextFrameGuess) / Double(rate)
                state.dropBeforeFrame = state.dropBeforeFrame ?? state.nextFrameGuess
                state.seekOffset = state.seekOffset ?? state.parser.nextByteOffset
            }
            return state.seekOffset == nil && state.totalSize.map { state.parser.nextByteOffset >= $0 } == true
        }
        if isWhole { end(nil, generation: nil) } else { connect(from: nil) }
    }

    /// Carries out the network side of a seek to `target` the queue could not serve: reads on,
    /// or drops the connection for one from the offset the seek table gives (opened by
    /// `connect`, when the state machine says so). Empties the queue and posts the seek's
    /// flush in the same hold of its lock, so that no packet of the old position follows it.
    func retarget(_ target: SeekPlanner.Target) -> PlayerStateMachine.SeekPlan {
        let (plan, old) = state.withLock { state -> (PlayerStateMachine.SeekPlan, (any AudioSourceConnection)?) in
            guard !state.isStopped else { return (.buffered, nil) }
            let point = state.parser.seekTable.offset(forTime: target.primedTime)
            let network = SeekPlanner.network(
                target, seekPoint: point,
                rangesSupported: state.rangesSupported, isConnected: state.connection != nil,
                nextFrame: state.nextFrameGuess, seeksByTime: state.seeksByTime)
            queue.withLock { $0.clear(seekFrame: target.rawFrame, position: target.position) }
            state.seekTime = nil
            switch network {
            case .readOn(let dropBefore):
                state.dropBeforeFrame = dropBefore
                // The queue is empty now: a connection paused by backpressure goes on.
                state.connection?.resume()
                return (.readOn, nil)
            case .connect(let offset, let firstFrame, let estimated, let dropBefore):
                state.dropBeforeFrame = dropBefore
                state.nextFrameGuess = firstFrame
                state.positionsEstimated = estimated
                state.seekOffset = offset
                state.search = nil
                if offset > 0, let start = Self.searchStart(state.parser, point: point) {
                    // The packets are placed exactly soon after any jump: found by probing.
                    state.positionsEstimated = false
                    let search = SeekSearch(
                        target: dropBefore, start: start, end: state.totalSize ?? offset * 2, probe: offset,
                        bytesPerFrame: state.parser.seekTable.estimatedBytesPerFrame ?? 1)
                    state.search = search
                    state.seekOffset = search.probe
                }
                return (.network(offset: state.seekOffset ?? offset), drop(&state))
            case .connectAt(let time, let firstFrame, let dropBefore):
                // The source says where its bytes start (`opened`); the offsets go on from here.
                (state.dropBeforeFrame, state.nextFrameGuess, state.positionsEstimated) = (dropBefore, firstFrame, true)
                (state.seekOffset, state.seekTime, state.search) = (state.parser.nextByteOffset, time, nil)
                return (.network(offset: state.parser.nextByteOffset), drop(&state))
            }
        }
        old?.cancel()
        queue.wakeConsumer()
        return plan
    }

    /// The lowest offset a seek's probes start from, when the seek is found by probing
    /// (`SeekSearch`) rather than at the seek table's `point`: always in Ogg,
    /// whose pages state their granule positions (from 0: the first packet may start inside a
    /// page); in FLAC, whose frames state their numbers, for an estimate (from the first frame:
    /// the metadata before it is not read again); in a fragmented MP4 whose fragments state their
    /// decode times, for any point but a segment index's (from the first fragment: the others
    /// lie inside an `mdat`, which cannot be parsed from there). `nil` for the other formats.
    private static func searchStart(_ parser: AudioStreamParser, point: AudioSeekPoint?) -> Int64? {
        switch parser.stage {
        case .ogg: return 0
        case .flac where point?.isExact != true: return parser.seekTable.dataOffset
        case .mp4(let mp4) where mp4.hasDecodeTimes && point?.method != .seekPoints: return mp4.firstFragmentOffset
        default: return nil
        }
    }

    /// Lets a connection paused by backpressure go on (harmless when it is not paused: a
    /// resume that crosses a new pause makes the source offer its bytes again).
    func resumeProducer() {
        state.withLock { $0.connection }?.resume()
    }

    /// Closes the connection.
    func disconnect() {
        state.withLock { drop(&$0) }?.cancel()
    }

    /// Closes the connection for good: nothing more is read.
    func stop() {
        state.withLock { state in
            state.isStopped = true
            return drop(&state)
        }?.cancel()
    }

    /// Forgets the current connection (its calls are ignored from now on); returns it, to be
    /// cancelled outside the lock.
    func drop(_ state: inout State) -> (any AudioSourceConnection)? {
        state.generation += 1
        state.receiver?.isCurrent.store(false, ordering: .relaxed)
        state.receiver = nil
        state.readsGathered = nil
        defer { state.connection = nil }
        return state.connection
    }
}
