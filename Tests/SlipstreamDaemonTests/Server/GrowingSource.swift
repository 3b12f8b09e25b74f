import Dispatch
import SlipstreamDaemon
import Synchronization

/// A streamed file whose bytes come when the test says (`grow(to:)`): reads block until theirs
/// are there, as a running download's do. Counts its closes, and wakes `closedSignal` at each.
final class GrowingSource: WebServer.StreamSource {
    private struct State {
        var available = 0
        var closed = false
        var waiters: [DispatchSemaphore] = []
    }

    let contentType = "audio/mpeg"
    let bytes: [UInt8]
    private let state = Mutex(State())
    /// Signalled at each `close()`.
    let closedSignal = DispatchSemaphore(value: 0)
    private let closes = Atomic(0)

    /// Whether `size()` tells the size (else it is a stream of unknown length).
    private let sized: Bool

    /// A file of `count` bytes (each its offset's low byte, times 7), `available` of them there;
    /// of a size it does not tell unless `sized`.
    init(count: Int, available: Int, sized: Bool = true) {
        self.sized = sized
        bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        state.withLock { $0.available = available }
    }

    var closeCount: Int { closes.load(ordering: .relaxed) }

    /// The first `count` bytes are there from now on.
    func grow(to count: Int) {
        let waiters = state.withLock { state in
            state.available = count
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    func size() -> Int64? { sized ? Int64(bytes.count) : nil }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        let start = Int(offset)
        while true {
            let waiter = DispatchSemaphore(value: 0)
            // nil: wait; -1: closed; else the bytes ready.
            let ready: Int? = state.withLock { state in
                if state.closed { return -1 }
                if start >= bytes.count { return 0 }
                if state.available > start { return min(buffer.count, state.available - start) }
                state.waiters.append(waiter)
                return nil
            }
            guard let ready else {
                waiter.wait()
                continue
            }
            guard ready >= 0 else { return nil }
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<start + ready])) }
            return ready
        }
    }

    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
        closes.add(1, ordering: .relaxed)
        closedSignal.signal()
    }
}
