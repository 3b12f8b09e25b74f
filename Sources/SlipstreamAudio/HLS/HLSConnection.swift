import Dispatch
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// One connection of an `HLSAudioSource`: the shell that runs an `HLSFetchMachine`. A thread of
/// its own carries out the machine's blocking actions (playlist, key, initialization section
/// and head fetches, its own deliveries, waits) and feeds their results back; each segment is
/// played through a transfer (an HTTP connection, or its bytes fetched ahead) whose bytes an
/// `HLSSegmentReceiver` reads and hands on as one stream. The segment's transfer, the engine
/// (fetches ahead) and the player (`resume()`, `cancel()`) feed the machine from their threads
/// and carry out only actions that return at once.
final class HLSConnection: AudioSourceConnection {
    /// How a segment's transfer ended, as its receiver tells it.
    enum SegmentOutcome: Sendable {
        /// Every byte was read.
        case ended
        /// The receiver said `.stop`.
        case stopped
        /// It failed; `retry`: fetching it again may help (an HTTP or network failure).
        case failed(AudioStreamerError, retry: Bool)
    }

    /// What the machine's shell keeps behind its lock.
    struct State: Sendable {
        var machine: HLSFetchMachine
        /// The playlist as already read, for the first fetch of the source's URL.
        var document: HLSAudioSource.Document?
        /// The transfer of the segment being played, and its receiver.
        var segment: (transfer: any AudioSourceConnection, receiver: HLSSegmentReceiver)?
        /// The small fetch (playlist, key, map, head) the thread waits for, and its result.
        var fetchTransfer: HTTPTransfer?
        var fetched: Result<HTTPResponse, HTTPError>?
        /// The keys fetched so far, by URL.
        var keys: [String: [UInt8]] = [:]
    }

    /// What the thread does after carrying out an action.
    private enum Then {
        /// Feeds this input.
        case feed(HLSFetchMachine.Input)
        /// Waits until this time (nil: until signalled), then feeds a tick.
        case wait(until: Double?)
        /// Ends.
        case exit
    }

    /// The bytes of a segment's start read for its first timestamp.
    static let headSize: Int64 = 16 << 10

    let setup: HLSAudioSource.Setup
    private let receiver: any AudioSourceReceiver
    let shell: MachineShell<State>
    /// Wakes the thread to feed a tick (extra signals are harmless).
    let wake = DispatchSemaphore(value: 0)
    /// The stream offset of the next byte given to the receiver: the thread and the current
    /// segment's transfer take turns (the thread gives bytes only while no segment plays).
    private let offset = Atomic<Int64>(0)
    let prefetcher: HLSPrefetcher

    init(setup: HLSAudioSource.Setup, request: AudioSourceRequest, receiver: any AudioSourceReceiver, document: HLSAudioSource.Document?) {
        self.setup = setup
        self.receiver = receiver
        let configuration = HLSFetchMachine.Configuration(
            url: setup.url, selection: setup.selection, lookahead: setup.lookahead, time: request.time, offset: request.offset)
        shell = MachineShell(State(machine: HLSFetchMachine(configuration), document: document))
        prefetcher = HLSPrefetcher(setup: setup)
    }

    /// A connection to a stream that ended at `size`: its answer (that size, not live), then its end.
    static func ended(_ size: Int64, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        // On a thread of its own, as a source's calls are (never inside `open`).
        IOThread.start(name: "slipstream-hls") {
            let answer = AudioSourceAnswer(offset: size, totalSize: size, rangesSupported: false, isLive: false)
            if case .proceed = receiver.sourceOpened(answer) { receiver.sourceEnded(nil) }
        }
        return EndedConnection()
    }

    /// The connection to a stream that ended: nothing to resume or cancel.
    private final class EndedConnection: AudioSourceConnection {
        func resume() {}
        func cancel() {}
    }

    /// Starts the thread.
    func start() {
        IOThread.start(name: "slipstream-hls") { [self] in run() }
    }

    func resume() {
        feed(.resume)
    }

    func cancel() {
        feed(.stop)
    }

    /// Whether nothing more is told (stopped, or the thread ended).
    var isOver: Bool {
        shell.withLock { $0.machine.isOver }
    }

    // MARK: - Feeding from other threads

    /// Feeds `input` from a thread other than the connection's: the actions return at once.
    func feed(_ input: HLSFetchMachine.Input) {
        shell.feed({ $0.machine.input(input) }, perform: carryOutAtOnce)
    }

    /// Carries out an action that returns at once.
    private func carryOutAtOnce(_ action: HLSFetchMachine.Action) {
        switch action {
        case .resumeSegment:
            shell.withLock { $0.segment?.transfer }?.resume()
        case .prefetch(let part):
            prefetcher.fetch(part.key, url: part.url, range: part.segment.byteRange) { [self] in feed(.prefetchEnded(key: part.key)) }
        case .cancelPrefetch(let key):
            prefetcher.cancel(key)
        case .cancelTransfers:
            let (segment, fetch) = shell.withLock { ($0.segment?.transfer, $0.fetchTransfer) }
            segment?.cancel()
            fetch?.cancel()
            prefetcher.cancelAll()
        case .wake:
            wake.signal()
        default:
            preconditionFailure("HLSConnection: \(action) is the thread's")
        }
    }

    // MARK: - The thread

    private func run() {
        var input = HLSFetchMachine.Input.start(at: Self.now())
        while true {
            var then = Then.wait(until: nil)
            shell.feed({ $0.machine.input(input) }) { action in
                if let next = carryOut(action) { then = next }
            }
            switch then {
            case .feed(let next):
                input = next
            case .wait(let time):
                if let time {
                    let remaining = time - Self.now()
                    if remaining > 0 { _ = wake.wait(timeout: .now() + remaining) }
                } else {
                    wake.wait()
                }
                input = .tick(at: Self.now())
            case .exit:
                return
            }
        }
    }

    /// Carries out `action` on the thread; what the thread does next, when it says.
    private func carryOut(_ action: HLSFetchMachine.Action) -> Then? {
        switch action {
        case .fetchPlaylist(let url):
            return .feed(loadPlaylist(url))
        case .readHead(let index, let part):
            return .feed(.headRead(index: index, timestamp: firstTimestamp(of: part)))
        case .open(let answer):
            // The bytes follow from the answer's offset.
            offset.store(answer.offset, ordering: .relaxed)
            guard case .proceed = receiver.sourceOpened(answer) else { return .feed(.stop) }
            return .feed(.opened(at: Self.now()))
        case .readInitialization(let map, let part):
            do throws(AudioStreamerError) {
                return .feed(.initializationRead(try initializationSection(map, of: part), at: Self.now()))
            } catch {
                return .feed(.failed(error))
            }
        case .deliver(let bytes):
            return .feed(deliver(bytes))
        case .startSegment(let part, let attempt, let delivered, let prefetched):
            do throws(AudioStreamerError) {
                try startSegment(part, attempt: attempt, delivered: delivered, prefetched: prefetched)
                return .feed(.segmentStarted(at: Self.now()))
            } catch {
                return .feed(.failed(error))
            }
        case .finishSegment(let part):
            return .feed(finishSegment(part))
        case .wait(let time):
            return .wait(until: time)
        case .end(let ending):
            end(ending)
            return .exit
        case .resumeSegment, .prefetch, .cancelPrefetch, .cancelTransfers, .wake:
            carryOutAtOnce(action)
            return nil
        }
    }

    /// Tells the receiver how the stream ends.
    private func end(_ ending: HLSFetchMachine.Ending) {
        switch ending {
        case .finished:
            let size = offset.load(ordering: .relaxed)
            setup.endedAt.withLock { $0 = size }
            receiver.sourceEnded(nil)
        case .failed(var failure):
            // The stream's URL, as other sources' errors name theirs (a segment is in the message).
            failure.url = setup.url
            receiver.sourceEnded(failure)
        case .stopped:
            break
        }
    }

    // MARK: - Delivering

    /// Gives `bytes` to the receiver from the thread.
    private func deliver(_ bytes: [UInt8]) -> HLSFetchMachine.Input {
        let at = offset.load(ordering: .relaxed)
        switch bytes.withUnsafeBytes({ receiver.sourceReceived($0, at: at) }) {
        case .proceed:
            offset.add(Int64(bytes.count), ordering: .relaxed)
            return .delivered(at: Self.now())
        case .pause:
            return .deliveryPaused
        case .stop:
            return .stop
        }
    }

    /// Called by the segment's receiver: `bytes` go to the receiver at the next offset.
    func segmentDelivers(_ bytes: UnsafeRawBufferPointer) -> AudioSourceDecision {
        let decision = receiver.sourceReceived(bytes, at: offset.load(ordering: .relaxed))
        if case .proceed = decision { offset.add(Int64(bytes.count), ordering: .relaxed) }
        return decision
    }

    /// Called by the segment's receiver for the bytes of the segment it received.
    func segmentReceived(_ count: Int) {
        setup.traffic.withLock { $0.bytes += Int64(count) }
    }

    /// Called by the segment's receiver when its reader knows what the segment holds.
    func segmentKindFound(_ kind: HLSSegmentReader.Kind) {
        setup.segmentKind.withLock { $0 = $0 ?? kind }
    }

    /// Called by the segment's receiver once, when its transfer is over, having given
    /// `delivered` audio bytes of the segment (by every attempt).
    func segmentEnded(_ outcome: SegmentOutcome, delivered: Int) {
        switch outcome {
        case .ended: feed(.segmentEnded(delivered: delivered))
        case .stopped: feed(.stop)
        case .failed(let error, let retry): feed(.segmentFailed(error, retry: retry, delivered: delivered))
        }
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        Double(MonotonicTime.now()) / 1e9
    }
}
