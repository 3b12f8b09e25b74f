import Dispatch
import SlipstreamHTTP
import Synchronization

/// Writes a download's bytes to its `.part` file, off the network thread while the disk keeps
/// up: each slice libcurl hands over is copied once into a slot of a bounded pool and written
/// by the writer's own thread. When every slot is taken the disk is the bottleneck, and the
/// slice is written at once from libcurl's buffer by the calling thread instead (no copy); that
/// wait is the backpressure, passed on to the server through TCP. Memory stays bounded by the pool.
final class DiskWriter: Sendable {
    /// A slot's memory. Only one thread touches it at a time: the staging thread until it is
    /// queued, then the writer thread until it is back in the free list (both hand-overs under
    /// `state`'s lock), so sending it across threads is safe though raw pointers are not Sendable.
    private struct Slot: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
    }

    private enum Item: Sendable {
        case write(Slot, count: Int, offset: Int64)
        case finish(@Sendable () -> Void)
    }

    private struct State {
        var free: [Slot] = []
        var allocated = 0
        var queue: [Item] = []
        var written = ByteRanges()
        var failure: DownloadError?
    }

    private let file: PartFile
    private let slotSize: Int
    private let maxSlots: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let onError: @Sendable (DownloadError) -> Void

    /// A writer for `file` with at most `maxSlots` slots of `slotSize` bytes (allocated as
    /// needed). `onError` is called on the writer thread when a queued write fails.
    init(file: PartFile, slotSize: Int, maxSlots: Int, onError: @escaping @Sendable (DownloadError) -> Void) {
        self.file = file
        self.slotSize = slotSize
        self.maxSlots = max(maxSlots, 1)
        self.onError = onError
        IOThread.start { [self] in run() }
    }

    /// Bytes written to the file so far.
    var written: ByteRanges { state.withLock { $0.written } }

    /// Takes `bytes` for `offset`: queued for the writer thread when a slot is free, else written
    /// before returning. Throws when the file cannot be written (a failed queued write included).
    func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        guard !bytes.isEmpty else { return }
        let slot: Slot? = try state.withLock { state throws(DownloadError) in
            if let failure = state.failure { throw failure }
            guard bytes.count <= slotSize else { return nil }
            if let slot = state.free.popLast() { return slot }
            guard state.allocated < maxSlots else { return nil }
            state.allocated += 1
            return Slot(memory: .allocate(byteCount: slotSize, alignment: 64))
        }
        guard let slot else {
            try file.write(bytes, at: offset)
            state.withLock { $0.written.insert(offset..<(offset + Int64(bytes.count))) }
            return
        }
        slot.memory.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        state.withLock { $0.queue.append(.write(slot, count: bytes.count, offset: offset)) }
        wake.signal()
    }

    /// Runs `then` on the writer thread once everything queued before is written (or failed),
    /// and ends the thread.
    func finish(then: @escaping @Sendable () -> Void) {
        state.withLock { $0.queue.append(.finish(then)) }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            let item = state.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
            switch item {
            case nil:
                continue
            case .finish(let then):
                state.withLock { state in
                    for slot in state.free { slot.memory.deallocate() }
                    state.free = []
                }
                then()
                return
            case .write(let slot, let count, let offset):
                write(slot, count: count, at: offset)
            }
        }
    }

    private func write(_ slot: Slot, count: Int, at offset: Int64) {
        var error: DownloadError?
        if state.withLock({ $0.failure == nil }) {
            do throws(DownloadError) {
                try file.write(UnsafeRawBufferPointer(start: slot.memory, count: count), at: offset)
            } catch let failure {
                error = failure
            }
        }
        state.withLock { state in
            state.free.append(slot)
            if let error {
                state.failure = error
            } else if state.failure == nil {
                state.written.insert(offset..<(offset + Int64(count)))
            }
        }
        if let error { onError(error) }
    }
}
