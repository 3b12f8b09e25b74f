import Dispatch
import SlipstreamHTTP
import Synchronization

/// Writes a download's bytes to its `.part` file on a thread of its own, so a slow disk never
/// stalls the network thread. Each slice libcurl hands over is copied once into a slot of a
/// bounded pool; when every slot is full, `stage` refuses and the caller pauses its transfer
/// until `onRoom` says a slot is free again (backpressure, bounded memory).
final class DiskWriter: Sendable {
    /// A slot's memory. Only ever touched by one thread at a time: the staging thread until it
    /// is queued, then the writer thread until it is back in the free list (both under `state`'s
    /// lock at the hand-overs), so sending it across is safe though raw pointers are not Sendable.
    private struct Slot: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
    }

    private enum Item: Sendable {
        case write(slots: [Slot], count: Int, offset: Int64)
        case finish(@Sendable () -> Void)
    }

    private struct State {
        var free: [Slot] = []
        var allocated = 0
        var queue: [Item] = []
        var written = ByteRanges()
        var failed = false
        /// Set when `stage` refused: `onRoom` is due when a slot frees.
        var waiting = false
    }

    private let file: PartFile
    private let slotSize: Int
    private let maxSlots: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let onRoom: @Sendable () -> Void
    private let onError: @Sendable (DownloadError) -> Void

    /// A writer for `file` with at most `maxSlots` slots of `slotSize` bytes (allocated as needed).
    /// `onRoom` and `onError` are called on the writer thread.
    init(file: PartFile, slotSize: Int, maxSlots: Int,
         onRoom: @escaping @Sendable () -> Void, onError: @escaping @Sendable (DownloadError) -> Void) {
        self.file = file
        self.slotSize = slotSize
        self.maxSlots = max(maxSlots, 1)
        self.onRoom = onRoom
        self.onError = onError
        IOThread.start { [self] in run() }
    }

    /// Bytes written to the file so far.
    var written: ByteRanges { state.withLock { $0.written } }

    /// Copies `bytes` for writing at `offset`. False when there is no room now (nothing was
    /// taken); `onRoom` follows once there is.
    func stage(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard !bytes.isEmpty else { return true }
        let needed = (bytes.count + slotSize - 1) / slotSize
        let slots: [Slot]? = state.withLock { state in
            guard state.free.count + (maxSlots - state.allocated) >= needed else {
                state.waiting = true
                return nil
            }
            var slots: [Slot] = []
            while slots.count < needed {
                if let slot = state.free.popLast() {
                    slots.append(slot)
                } else {
                    state.allocated += 1
                    slots.append(Slot(memory: .allocate(byteCount: slotSize, alignment: 64)))
                }
            }
            return slots
        }
        guard let slots else { return false }
        for (index, slot) in slots.enumerated() {
            let start = index * slotSize
            let count = min(slotSize, bytes.count - start)
            slot.memory.copyMemory(from: bytes.baseAddress! + start, byteCount: count)
        }
        state.withLock { $0.queue.append(.write(slots: slots, count: bytes.count, offset: offset)) }
        wake.signal()
        return true
    }

    /// Runs `then` on the writer thread once everything staged before is written (or failed),
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
                release()
                then()
                return
            case .write(let slots, let count, let offset):
                write(slots, count: count, at: offset)
            }
        }
    }

    private func write(_ slots: [Slot], count: Int, at offset: Int64) {
        var error: DownloadError?
        if !state.withLock({ $0.failed }) {
            do throws(DownloadError) {
                for (index, slot) in slots.enumerated() {
                    let start = index * slotSize
                    try file.write(UnsafeRawBufferPointer(start: slot.memory, count: min(slotSize, count - start)),
                                   at: offset + Int64(start))
                }
            } catch let failure {
                error = failure
            }
        }
        let notify = state.withLock { state in
            state.free.append(contentsOf: slots)
            if error != nil { state.failed = true } else { state.written.insert(offset..<(offset + Int64(count))) }
            defer { state.waiting = false }
            return state.waiting
        }
        if let error { onError(error) }
        if notify { onRoom() }
    }

    private func release() {
        state.withLock { state in
            for slot in state.free { slot.memory.deallocate() }
            state.free = []
        }
    }
}
