import Dispatch
import Synchronization

/// What a bounded read of a source gave (`AudioSource.read(_:)`).
package struct AudioSourceRead: Sendable {
    /// The connection's answer.
    package var answer: AudioSourceAnswer
    /// The bytes from the offset asked for: as many as asked, fewer only at the stream's end.
    package var bytes: [UInt8]
    /// Every byte received, those before the offset asked for included (from a source that
    /// could only start at the beginning).
    package var bytesReceived: Int64
    /// What the source found beside the bytes (a radio station's facts and titles), in order.
    package var metadata: [AudioSourceMetadata] = []
}

/// How long a read of a live stream (which has no end to read to) goes on: until `bytes`
/// have come and a title with them (or twice `bytes` without one), or for `seconds`, whichever
/// is first.
package struct LiveReadLimit: Sendable {
    /// Bytes enough to describe the stream's format and bit rate.
    package var bytes: Int
    /// The longest the read goes on.
    package var seconds: Double

    /// A limit of `bytes` and `seconds`.
    package init(bytes: Int, seconds: Double) {
        self.bytes = bytes
        self.seconds = seconds
    }
}

extension AudioSource {
    /// Reads `request.length` bytes (which must be given) from `request.offset` into memory, on
    /// one connection: when the source can only start at the beginning, the bytes before the
    /// offset are read and dropped (or, unless `fromStartIfNeeded`, none is read: the answer
    /// comes back alone). The bytes go into `buffer`'s storage (emptied first) when it is
    /// uniquely held and large enough: a caller that reads again and again hands back the last
    /// read's bytes, and no memory is allocated per read. Cancelling the calling task cancels
    /// the connection and throws `.cancelled`. A live stream is read as `live` says, not to
    /// the length asked for. `endsEarly`, when given, sees each slice of the bytes taken as it
    /// arrives (on the source's thread) and ends the read with the bytes so far by returning
    /// true: a stream that sends slowly, or stalls, can be judged by its first bytes.
    package func read(
        _ request: AudioSourceRequest, fromStartIfNeeded: Bool = true, live: LiveReadLimit? = nil,
        reusing buffer: consuming [UInt8] = [], endsEarly: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil
    ) async throws(AudioStreamerError) -> AudioSourceRead {
        let collector = ReadCollector(
            request: request, location: location, fromStartIfNeeded: fromStartIfNeeded, live: live, buffer: buffer,
            endsEarly: endsEarly)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                collector.start(continuation)
                collector.attach(open(request, receiver: collector))
            }
        } onCancel: {
            collector.cancel()
        }
        return try result.get()
    }
}

/// Collects one bounded read and hands it to one continuation, once.
private final class ReadCollector: AudioSourceReceiver {
    private struct State {
        var answer: AudioSourceAnswer?
        var bytes: [UInt8] = []
        var received: Int64 = 0
        var metadata: [AudioSourceMetadata] = []
        /// When the answer came (monotonic ns), for a live stream's time limit.
        var answerTime: Int64 = 0
        var isLive = false
        var continuation: CheckedContinuation<Result<AudioSourceRead, AudioStreamerError>, Never>?
        var connection: (any AudioSourceConnection)?
        var isCancelled = false
        var isDone = false
    }

    private let request: AudioSourceRequest
    private let location: AudioLocation
    private let fromStartIfNeeded: Bool
    private let live: LiveReadLimit?
    private let endsEarly: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    private let state = Mutex(State())

    init(
        request: AudioSourceRequest, location: AudioLocation, fromStartIfNeeded: Bool, live: LiveReadLimit?,
        buffer: consuming [UInt8], endsEarly: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    ) {
        self.request = request
        self.location = location
        self.fromStartIfNeeded = fromStartIfNeeded
        self.live = live
        self.endsEarly = endsEarly
        var bytes = consume buffer
        bytes.removeAll(keepingCapacity: true)
        // Room for the whole read at once (here, not on the source's thread, in its own heap).
        bytes.reserveCapacity(Int(min(request.length ?? 0, 1 << 26)))
        state.withLock { $0.bytes = bytes }
    }

    func start(_ continuation: CheckedContinuation<Result<AudioSourceRead, AudioStreamerError>, Never>) {
        let cancelled = state.withLock { state in
            state.continuation = continuation
            return state.isCancelled
        }
        if cancelled { finish(.failure(cancellation)) }
    }

    func attach(_ connection: any AudioSourceConnection) {
        let cancelled = state.withLock { state in
            state.connection = connection
            return state.isCancelled
        }
        if cancelled { connection.cancel() }
    }

    func cancel() {
        let connection = state.withLock { state in
            state.isCancelled = true
            return state.connection
        }
        connection?.cancel()
        finish(.failure(cancellation))
    }

    /// The time a live stream is read for is up: the read ends with what came, or fails when
    /// nothing did.
    private func liveTimeIsUp(_ live: LiveReadLimit) {
        let (connection, hasBytes) = state.withLock { ($0.connection, !$0.bytes.isEmpty) }
        connection?.cancel()
        finish(
            hasBytes
                ? nil
                : .failure(
                    AudioStreamerError(
                        .timedOut, "no audio from the live stream \(location) within \(formatSeconds(live.seconds))",
                        url: location.url, path: location.path)))
    }

    private var cancellation: AudioStreamerError {
        AudioStreamerError(.cancelled, "the read of \(location) was cancelled", url: location.url, path: location.path)
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        let isLive = state.withLock { state in
            state.answer = answer
            state.isLive = answer.isLive && live != nil
            state.answerTime = MonotonicTime.now()
            return state.isLive
        }
        // A live stream that stalls is judged by what came within the time allowed.
        if isLive, let live { DispatchQueue.global().asyncAfter(deadline: .now() + live.seconds) { [self] in liveTimeIsUp(live) } }
        guard answer.offset == request.offset || fromStartIfNeeded else {
            finish(nil)
            return .stop
        }
        return .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        let end = request.offset + (request.length ?? 0)
        let from = Int(max(request.offset - offset, 0)), to = Int(max(min(end - offset, Int64(bytes.count)), 0))
        let full = state.withLock { state -> Bool in
            // Counted as taken: up to the end asked for (a source that sends on past it is cut).
            state.received += max(min(Int64(bytes.count), end - offset), 0)
            if from < to { state.bytes += bytes[from..<to] }
            if state.isLive, let live { return isEnough(state, live) }
            return offset + Int64(bytes.count) >= end
        }
        // Outside the lock: the receiver is called one slice at a time, in order.
        let endsNow = from < to && endsEarly?(UnsafeRawBufferPointer(rebasing: bytes[from..<to])) == true
        guard full || endsNow else { return .proceed }
        finish(nil)
        return .stop
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {
        state.withLock { $0.metadata.append(metadata) }
    }

    /// Whether a live stream has been read long enough.
    private func isEnough(_ state: State, _ live: LiveReadLimit) -> Bool {
        let hasTitle = state.metadata.contains { if case .title = $0 { true } else { false } }
        let count = state.bytes.count
        if count >= 2 * live.bytes || (hasTitle && count >= live.bytes) { return true }
        return Double(MonotonicTime.now() - state.answerTime) / 1e9 >= live.seconds && count > 0
    }

    func sourceEnded(_ error: AudioStreamerError?) {
        finish(error.map { .failure($0) })
    }

    /// Hands the read (or `failure`) to the continuation, the first time only.
    private func finish(_ failure: Result<AudioSourceRead, AudioStreamerError>?) {
        let (continuation, result) = state.withLock {
            state -> (CheckedContinuation<Result<AudioSourceRead, AudioStreamerError>, Never>?, Result<AudioSourceRead, AudioStreamerError>)
            in
            guard !state.isDone, let continuation = state.continuation else { return (nil, .failure(AudioStreamerError(.cancelled, ""))) }
            state.isDone = true
            state.continuation = nil
            if let failure { return (continuation, failure) }
            guard let answer = state.answer else {
                return (
                    continuation, .failure(AudioStreamerError(.network, "\(location): no answer", url: location.url, path: location.path))
                )
            }
            // Moved out, so that the caller holds the only reference and can hand it back.
            defer { state.bytes = [] }
            return (
                continuation,
                .success(AudioSourceRead(answer: answer, bytes: state.bytes, bytesReceived: state.received, metadata: state.metadata))
            )
        }
        continuation?.resume(returning: result)
    }
}
