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
}

extension AudioSource {
    /// Reads `request.length` bytes (which must be given) from `request.offset` into memory, on
    /// one connection: when the source can only start at the beginning, the bytes before the
    /// offset are read and dropped (or, unless `fromStartIfNeeded`, none is read: the answer
    /// comes back alone). The bytes go into `buffer`'s storage (emptied first) when it is
    /// uniquely held and large enough: a caller that reads again and again hands back the last
    /// read's bytes, and no memory is allocated per read. Cancelling the calling task cancels
    /// the connection and throws `.cancelled`.
    package func read(
        _ request: AudioSourceRequest, fromStartIfNeeded: Bool = true,
        reusing buffer: consuming [UInt8] = []
    ) async throws(AudioStreamerError) -> AudioSourceRead {
        let collector = ReadCollector(request: request, location: location, fromStartIfNeeded: fromStartIfNeeded, buffer: buffer)
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
        var continuation: CheckedContinuation<Result<AudioSourceRead, AudioStreamerError>, Never>?
        var connection: (any AudioSourceConnection)?
        var isCancelled = false
        var isDone = false
    }

    private let request: AudioSourceRequest
    private let location: AudioLocation
    private let fromStartIfNeeded: Bool
    private let state = Mutex(State())

    init(request: AudioSourceRequest, location: AudioLocation, fromStartIfNeeded: Bool, buffer: consuming [UInt8]) {
        self.request = request
        self.location = location
        self.fromStartIfNeeded = fromStartIfNeeded
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

    private var cancellation: AudioStreamerError {
        AudioStreamerError(.cancelled, "the read of \(location) was cancelled", url: location.url, path: location.path)
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        state.withLock { $0.answer = answer }
        guard answer.offset == request.offset || fromStartIfNeeded else {
            finish(nil)
            return .stop
        }
        return .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        let end = request.offset + (request.length ?? 0)
        let full = state.withLock { state -> Bool in
            // Counted as taken: up to the end asked for (a source that sends on past it is cut).
            state.received += max(min(Int64(bytes.count), end - offset), 0)
            let from = Int(max(request.offset - offset, 0)), to = Int(max(min(end - offset, Int64(bytes.count)), 0))
            if from < to { state.bytes += bytes[from..<to] }
            return offset + Int64(bytes.count) >= end
        }
        guard full else { return .proceed }
        finish(nil)
        return .stop
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {}

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
            return (continuation, .success(AudioSourceRead(answer: answer, bytes: state.bytes, bytesReceived: state.received)))
        }
        continuation?.resume(returning: result)
    }
}
