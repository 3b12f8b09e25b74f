import Dispatch
import Synchronization

/// Reads a download while it runs (`Download.reader(at:bytesPerSecond:)`): bytes come as soon
/// as they are written to the download's file, and reading tells the download where the reader
/// is, so that its connections fetch the bytes ahead of the reader first (a window of about 30
/// seconds of reading at `bytesPerSecond`, 4 MiB when the rate is unknown), while the rest of
/// the file keeps downloading. A read of bytes not written yet waits for them.
///
/// Which bytes exist is the download's own record of what it wrote (kept with its `.part`
/// file for a resume), never the file's contents: a hole is never read as zeros. The reader
/// keeps reading the file after the download finished (under its final name) and the bytes
/// written before it failed.
///
/// A reader reads one read at a time; any number of readers of one download may read at
/// once, each at its own place. `close()` it when done (or let it go: its window goes with it).
public final class DownloadReader: Sendable {
    private struct State {
        var position: Int64
        var closed = false
        /// The wait in progress: how to end it early (a close, a cancelled task).
        var interrupt: (@Sendable () -> Void)?
    }

    private let reading: DownloadReading
    private let id: Int
    private let state: Mutex<State>

    init(reading: DownloadReading, at offset: Int64, bytesPerSecond: Double?) {
        self.reading = reading
        state = Mutex(State(position: offset))
        id = reading.addReader(at: offset, bytesPerSecond: bytesPerSecond)
    }

    deinit { reading.removeReader(id) }

    /// Where the next `read(upTo:)` reads.
    public var position: Int64 { state.withLock { $0.position } }

    /// Moves the reader to `offset`: the download fetches the bytes there first from now on
    /// (those already written are read at once, with no request).
    public func seek(to offset: Int64) {
        precondition(offset >= 0, "a reader's position is never negative")
        state.withLock { $0.position = offset }
        _ = reading.availability(at: offset, for: id)
    }

    /// Tells how fast the reader reads (bytes per second; nil: unknown): the window the
    /// download fetches first reaches about 30 seconds of it.
    public func setBytesPerSecond(_ bytesPerSecond: Double?) {
        reading.setRate(bytesPerSecond, of: id)
    }

    /// Reads up to `count` bytes at `position` as soon as at least one is written, and moves
    /// past them; empty at the end of the file. Throws the download's error when it failed
    /// without writing the byte at `position`, and `.cancelled` when the task is cancelled or
    /// the reader closed meanwhile.
    public func read(upTo count: Int) async throws(DownloadError) -> [UInt8] {
        precondition(count > 0, "a read of no bytes")
        let offset = position
        let available: Int64
        switch try await availability(at: offset) {
        case .end: return []
        case .ready(let bytes): available = bytes
        case .waiting: preconditionFailure("a wait ends ready, at the end, or thrown")
        }
        let wanted = Int(min(Int64(count), available))
        let reading = reading
        let result: Result<[UInt8], DownloadError> = await withCheckedContinuation { continuation in
            // The file read: on a Dispatch thread, never the Swift concurrency pool's.
            DispatchQueue.global().async {
                var bytes = [UInt8](repeating: 0, count: wanted)
                var failure: DownloadError?
                let count = bytes.withUnsafeMutableBytes { buffer in
                    do throws(DownloadError) { return try reading.pread(into: buffer, at: offset) } catch {
                        failure = error
                        return 0
                    }
                }
                bytes.removeLast(wanted - count)
                continuation.resume(returning: failure.map { .failure($0) } ?? .success(bytes))
            }
        }
        let bytes = try result.get()
        state.withLock { if $0.position == offset { $0.position += Int64(bytes.count) } }
        return bytes
    }

    /// Reads up to `buffer.count` bytes at `offset`, waiting on the calling thread until at
    /// least one is written; 0 at the end of the file. Does not move `position` (but tells the
    /// download where the reader reads). Blocking: for a thread of the caller's own, never the
    /// Swift concurrency pool's. Throws as `read(upTo:)` does (`.cancelled` after `close()`).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(DownloadError) -> Int {
        while true {
            try checkOpen(at: offset)
            switch reading.availability(at: offset, for: id) {
            case .end:
                return 0
            case .ready(let bytes):
                let wanted = Int(min(Int64(buffer.count), bytes))
                return try reading.pread(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]), at: offset)
            case .waiting:
                if let failure = reading.failure(at: offset) { throw failure }
                let woken = DispatchSemaphore(value: 0)
                guard install(interrupt: { woken.signal() }) else { continue }
                let key = reading.wait(for: offset) { woken.signal() }
                woken.wait()
                reading.cancelWait(key)
                state.withLock { $0.interrupt = nil }
            }
        }
    }

    /// Stops the reader: a read waiting now throws `.cancelled`, and its window goes (the
    /// download carries on as if it had never been read). Safe to call more than once.
    public func close() {
        let interrupt = state.withLock { state in
            state.closed = true
            defer { state.interrupt = nil }
            return state.interrupt
        }
        interrupt?()
        reading.removeReader(id)
    }

    // MARK: Waiting

    /// How a read at `offset` stands once it need not wait: ready or at the end.
    private func availability(at offset: Int64) async throws(DownloadError) -> DownloadReading.Availability {
        while true {
            try checkOpen(at: offset)
            let availability = reading.availability(at: offset, for: id)
            guard availability == .waiting else { return availability }
            if let failure = reading.failure(at: offset) { throw failure }
            let wake = WakeOnce()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    wake.install(continuation)
                    guard install(interrupt: { wake.fire() }) else { return wake.fire() }
                    let key = reading.wait(for: offset) { wake.fire() }
                    wake.onFired { [reading] in reading.cancelWait(key) }
                }
            } onCancel: {
                wake.fire()
            }
            state.withLock { $0.interrupt = nil }
            if Task.isCancelled { throw cancelled(at: offset) }
        }
    }

    /// Sets what ends the coming wait early; false when the reader is closed already.
    private func install(interrupt: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.interrupt = interrupt
            return true
        }
    }

    private func checkOpen(at offset: Int64) throws(DownloadError) {
        if state.withLock({ $0.closed }) { throw cancelled(at: offset) }
    }

    private func cancelled(at offset: Int64) -> DownloadError {
        DownloadError(.cancelled, "the read at byte \(offset) of a running download was cancelled")
    }
}

/// A continuation resumed once, by whichever comes first: the bytes, a close, a cancel.
private final class WakeOnce: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var fired = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        let fired = state.withLock { state in
            if !state.fired { state.continuation = continuation }
            return state.fired
        }
        if fired { continuation.resume() }
    }

    /// Runs `cleanup` once fired (at once, if it has been).
    func onFired(_ cleanup: @escaping @Sendable () -> Void) {
        let fired = state.withLock { state in
            if !state.fired { state.cleanup = cleanup }
            return state.fired
        }
        if fired { cleanup() }
    }

    func fire() {
        let (continuation, cleanup) = state.withLock { state in
            guard !state.fired else { return (CheckedContinuation<Void, Never>?.none, (@Sendable () -> Void)?.none) }
            state.fired = true
            defer { (state.continuation, state.cleanup) = (nil, nil) }
            return (state.continuation, state.cleanup)
        }
        cleanup?()
        continuation?.resume()
    }
}
