import Dispatch
import SlipstreamHTTP
import Synchronization

/// Writes a download's bytes to its `.part` file, off the network thread while the disk keeps
/// up: each slice libcurl hands over is copied once into a slot of a bounded pool and written
/// by the writer's own thread. When every slot is taken the disk is the bottleneck, and the
/// slice is written at once from libcurl's buffer by the calling thread instead (no copy); that
/// wait is the backpressure, passed on to the server through TCP. Memory stays bounded by the pool.
///
/// A small file's writer has no thread: it holds the whole file in memory and writes it with
/// one call when it finishes, on a Dispatch thread, so the network thread never waits for
/// the disk for it (see `init(holding:file:onError:)`).
///
/// With a `Checkpoint`, the writer thread also keeps the resume records: the live one every
/// tenth of a second, the durable one (after an fdatasync of the data) at its interval (never
/// more than once a second), at the start of a new download and when the writer finishes
/// with the record kept. No fsync ever happens on the network thread.
final class DiskWriter: Sendable {
    /// What to record for resuming, and where.
    struct Checkpoint: Sendable {
        var store: ResumeStore
        var record: ControlFile
        /// Seconds between durable records (at least 1).
        var durableInterval: Double
        /// Whether the records must be written at once (a new download), not only on change.
        var writeAtStart: Bool
    }

    /// A slot's memory. Only one thread touches it at a time: the staging thread until it is
    /// queued, then the writer thread until it is back in the free list (both hand-overs under
    /// `state`'s lock), so sending it across threads is safe though raw pointers are not Sendable.
    private struct Slot: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
    }

    /// A small file's bytes, held whole until the writer finishes. `@unchecked` because raw
    /// pointers are not Sendable: the bytes are written only under `state`'s lock by the thread
    /// that hands slices over, then read and freed only by the finishing thread, after the last
    /// slice (the hand-over is `finish`).
    private struct Held: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
        let size: Int
    }

    private enum Item: Sendable {
        case write(Slot, count: Int, offset: Int64)
        case finish(keepRecord: Bool, then: @Sendable () -> Void)
    }

    private struct State {
        var free: [Slot] = []
        var allocated = 0
        var queue: [Item] = []
        var written = ByteRanges()
        var failure: DownloadError?
        /// Whether a resume record was ever saved.
        var recorded = false
    }

    private let file: PartFile
    private let slotSize: Int
    private let maxSlots: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let onError: @Sendable (DownloadError) -> Void
    private let checkpoint: Checkpoint?
    private let held: Held?

    /// A writer for `file` with its own thread and at most `maxSlots` (at least 1) slots of
    /// `slotSize` bytes (allocated as needed), starting with `written` already on disk.
    /// `onError` is called on the writer thread when a queued write or a checkpoint fails.
    init(file: PartFile, slotSize: Int, maxSlots: Int, written: ByteRanges = ByteRanges(), checkpoint: Checkpoint? = nil,
         onError: @escaping @Sendable (DownloadError) -> Void) {
        precondition(maxSlots > 0, "a writer thread needs a slot")
        self.file = file
        self.slotSize = slotSize
        self.maxSlots = maxSlots
        self.onError = onError
        self.checkpoint = checkpoint
        held = nil
        state.withLock { $0.written = written }
        IOThread.start { [self] in run() }
    }

    /// A writer for a new `file` of `size` bytes that holds them all in memory and writes them
    /// when it finishes: no thread, no resume records, one write call. Meant for small files,
    /// where a thread costs more than the memory. `onError` is called when that write fails.
    init(holding size: Int, file: PartFile, onError: @escaping @Sendable (DownloadError) -> Void) {
        self.file = file
        slotSize = 0
        maxSlots = 0
        self.onError = onError
        checkpoint = nil
        held = Held(memory: HeldMemoryPool.shared.take(size), size: size)
    }

    /// Bytes written to the file so far.
    var written: ByteRanges { state.withLock { $0.written } }

    /// Whether the writer has saved a resume record (then the records are on disk).
    var hasWrittenRecords: Bool { state.withLock { $0.recorded } }

    /// Whether the writer keeps resume records at all (a small file's does not).
    var keepsRecords: Bool { checkpoint != nil }

    /// Takes `bytes` for `offset`: held, or queued for the writer thread when a slot is free,
    /// else written before returning. Throws when the file cannot be written (a failed queued
    /// write included).
    func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        guard !bytes.isEmpty else { return }
        enum Destination { case held, slot(Slot), direct }
        let destination: Destination = try state.withLock { state throws(DownloadError) in
            if let failure = state.failure { throw failure }
            if let held {
                guard offset >= 0, offset + Int64(bytes.count) <= Int64(held.size) else {
                    throw DownloadError(.network, "\(file.path): more bytes came than the \(held.size) announced")
                }
                (held.memory + Int(offset)).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                state.written.insert(offset..<(offset + Int64(bytes.count)))
                return .held
            }
            guard bytes.count <= slotSize else { return .direct }
            if let slot = state.free.popLast() { return .slot(slot) }
            guard state.allocated < maxSlots else { return .direct }
            state.allocated += 1
            return .slot(Slot(memory: .allocate(byteCount: slotSize, alignment: 64)))
        }
        switch destination {
        case .held:
            return
        case .direct:
            try file.write(bytes, at: offset)
            state.withLock { $0.written.insert(offset..<(offset + Int64(bytes.count))) }
        case .slot(let slot):
            slot.memory.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            state.withLock { $0.queue.append(.write(slot, count: bytes.count, offset: offset)) }
            wake.signal()
        }
    }

    /// Runs `then` on the writer thread once everything queued before is written (or failed),
    /// after a last durable record when `keepRecord`, and ends the thread. A holding writer
    /// writes what it holds on a Dispatch thread, then runs `then` there.
    func finish(keepRecord: Bool, then: @escaping @Sendable () -> Void) {
        if let held {
            DispatchQueue.global().async { [self] in
                writeHeld(held)
                then()
            }
            return
        }
        state.withLock { $0.queue.append(.finish(keepRecord: keepRecord, then: then)) }
        wake.signal()
    }

    private func run() {
        var recorder = checkpoint.map { Recorder(checkpoint: $0, file: file) }
        if checkpoint?.writeAtStart == true { record(&recorder, durable: true) }
        while true {
            let timedOut = wake.wait(timeout: .now() + .milliseconds(100)) == .timedOut
            let item = timedOut ? nil : state.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
            switch item {
            case nil:
                break
            case .finish(let keepRecord, let then):
                state.withLock { state in
                    for slot in state.free { slot.memory.deallocate() }
                    state.free = []
                }
                if keepRecord { record(&recorder, durable: true) }
                then()
                return
            case .write(let slot, let count, let offset):
                write(slot, count: count, at: offset)
            }
            record(&recorder, durable: false)
        }
    }

    /// Saves the live record when due (and the durable one when due, or when `durable`).
    private func record(_ recorder: inout Recorder?, durable: Bool) {
        guard recorder != nil else { return }
        let (written, failed) = state.withLock { ($0.written, $0.failure != nil) }
        do throws(DownloadError) {
            if try recorder!.save(written, force: durable && !failed) { state.withLock { $0.recorded = true } }
        } catch {
            recorder = nil
            state.withLock { if $0.failure == nil { $0.failure = error } }
            onError(error)
        }
    }

    /// Writes the held bytes taken so far (unless a take failed) and hands their memory back.
    private func writeHeld(_ held: Held) {
        let (taken, failed) = state.withLock { ($0.written, $0.failure != nil) }
        defer { HeldMemoryPool.shared.give(held.memory, size: held.size) }
        guard !failed else { return }
        do throws(DownloadError) {
            for range in taken {
                try file.write(UnsafeRawBufferPointer(start: held.memory + Int(range.lowerBound), count: Int(range.count)),
                               at: range.lowerBound)
            }
        } catch {
            state.withLock { $0.failure = error }
            onError(error)
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

/// Keeps the resume records of one writer: when each is due, and what it last claimed.
private struct Recorder {
    let checkpoint: DiskWriter.Checkpoint
    let file: PartFile
    var record: ControlFile
    var liveClaim = ByteRanges()
    var durableClaim = ByteRanges()
    /// Bytes written since the last live record that make the next one due at once (a burst
    /// at the start of a run is worth recording before the tenth of a second is up).
    static let liveBurst: Int64 = 4 << 20
    var lastLive = ContinuousClock.now
    var lastDurable = ContinuousClock.now

    init(checkpoint: DiskWriter.Checkpoint, file: PartFile) {
        self.checkpoint = checkpoint
        self.file = file
        record = checkpoint.record
        durableClaim = checkpoint.record.writtenRanges
        liveClaim = durableClaim
    }

    /// `written` is what the writer has written; a durable record claims it only after
    /// fdatasync. `force` writes a durable record now, even without news (the first one).
    /// True when a record was saved.
    mutating func save(_ written: ByteRanges, force: Bool) throws(DownloadError) -> Bool {
        let now = ContinuousClock.now
        let durableDue = now - lastDurable >= .seconds(max(checkpoint.durableInterval, 1))
        if force || (written != durableClaim && durableDue) {
            try file.synchronize()
            record.record(written)
            try checkpoint.store.saveDurable(record)
            durableClaim = written
            liveClaim = written
            lastDurable = now
            lastLive = now
            try checkpoint.store.saveLive(record)
            return true
        } else if written != liveClaim,
                  now - lastLive >= .milliseconds(100) || written.byteCount - liveClaim.byteCount >= Self.liveBurst {
            record.record(written)
            try checkpoint.store.saveLive(record)
            liveClaim = written
            lastLive = now
            return true
        }
        return false
    }
}
