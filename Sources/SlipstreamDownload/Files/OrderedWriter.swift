import Dispatch
import Glibc
import Synchronization

/// Writes a download's bytes in order to a file descriptor (a pipe, standard output), never
/// on the network thread: each slice libcurl hands over is copied once into a ring of
/// `capacity` bytes at its offset, and the writer's own thread writes out what is ready from
/// the write position on. Slices beyond the window (`ReorderWindow`) are refused: the caller
/// pauses their transfer, and `onRoom` says when the write position has moved far enough for
/// them. The memory is the ring, allocated once, whatever the file's size.
///
/// The writer thread blocks SIGPIPE for itself: a reader that closes the pipe early ends the
/// download with `.outputClosed`, not the process. The descriptor is not closed.
final class OrderedWriter: Sendable {
    /// The ring's memory. Only the bytes of one offset range are touched by one thread at a
    /// time: the staging thread copies into `ready...` under `state`'s lock, the writer thread
    /// reads `position..<handedOut`, which the window keeps apart, so sharing it is safe though
    /// raw pointers are not Sendable.
    private struct Ring: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
    }

    private struct State {
        var window: ReorderWindow
        var failure: DownloadError?
        /// Set by `finish`: run once everything ready is written.
        var then: (@Sendable () -> Void)?
        /// The writer thread waits for `wake` (a slice or `finish` must signal it).
        var sleeping = false
    }

    let descriptor: Int32
    private let ring: Ring
    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)
    private let hooks: DiskWriter.Hooks

    /// A writer to `descriptor` with a ring of `capacity` bytes (at least twice the largest
    /// slice), starting its thread.
    init(descriptor: Int32, capacity: Int, hooks: DiskWriter.Hooks) {
        self.descriptor = descriptor
        self.hooks = hooks
        ring = Ring(memory: .allocate(byteCount: capacity, alignment: 64))
        state = Mutex(State(window: ReorderWindow(capacity: Int64(capacity))))
        IOThread.start(name: "slipstream-out") { [self] in run() }
    }

    deinit { ring.memory.deallocate() }

    /// What a person calls the descriptor in a message.
    var name: String { descriptor == STDOUT_FILENO ? "standard output" : "file descriptor \(descriptor)" }

    /// The window's accounting now (for tests and progress).
    var window: ReorderWindow { state.withLock { $0.window } }

    /// Takes `bytes` for `offset` into the ring: false when they lie beyond the window (nothing
    /// taken; `onRoom` tells when to try again). Throws once writing failed. Called by one
    /// thread at a time.
    func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) -> Bool {
        guard !bytes.isEmpty else { return true }
        let (taken, wakeWriter) = try state.withLock { state throws(DownloadError) in
            if let failure = state.failure { throw failure }
            let before = state.window.ready
            guard state.window.arrive(at: offset, count: bytes.count) else { return (false, false) }
            let start = state.window.ringIndex(offset)
            let first = min(bytes.count, Int(state.window.capacity) - start)
            (ring.memory + start).copyMemory(from: bytes.baseAddress!, byteCount: first)
            if first < bytes.count {
                ring.memory.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first)
            }
            let wakeWriter = state.sleeping && state.window.ready != before
            if wakeWriter { state.sleeping = false }
            return (true, wakeWriter)
        }
        if wakeWriter { wake.signal() }
        return taken
    }

    /// Runs `then` on the writer thread once every byte ready is written (or writing failed),
    /// and ends the thread.
    func finish(then: @escaping @Sendable () -> Void) {
        let wakeWriter = state.withLock { state in
            state.then = then
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wakeWriter { wake.signal() }
    }

    private enum Step {
        case write(Range<Int64>)
        case finish(@Sendable () -> Void)
        case wait
    }

    private func run() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        while true {
            let step: Step = state.withLock { state in
                if state.failure == nil, let range = state.window.nextWrite() { return .write(range) }
                if let then = state.then { return .finish(then) }
                state.sleeping = true
                return .wait
            }
            switch step {
            case .wait:
                wake.wait()
            case .finish(let then):
                then()
                return
            case .write(let range):
                hooks.beforeWrite?(range.lowerBound, range.count)
                let bytes = UnsafeRawBufferPointer(
                    start: ring.memory + state.withLock { $0.window.ringIndex(range.lowerBound) }, count: range.count)
                if let error = write(bytes, at: range.lowerBound, blocked: &blocked) {
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                    hooks.onError(error)
                    continue
                }
                let room = state.withLock { $0.window.wrote(range.count) }
                if room { hooks.onRoom() }
            }
        }
    }

    /// Writes all of `bytes` (the file's bytes from `offset`); the error when that fails.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64, blocked: inout sigset_t) -> DownloadError? {
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count >= 0 {
                done += count
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                // A descriptor someone made non-blocking: wait until it takes more.
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case EPIPE:
                // The SIGPIPE this raised is pending for this thread only: taken here, it never
                // reaches the process.
                var none = timespec()
                _ = sigtimedwait(&blocked, nil, &none)
                return DownloadError(
                    .outputClosed, "the reader of \(name) closed it after \(offset + Int64(done)) bytes")
            default:
                return DownloadError(.disk, "cannot write to \(name): \(FileSystem.lastError)")
            }
        }
        return nil
    }
}
