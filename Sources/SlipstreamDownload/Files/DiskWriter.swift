import Dispatch
import SlipstreamHTTP
import Synchronization

/// Writes a download's bytes to its `.part` file, never on the network thread: each slice
/// libcurl hands over is copied once into a slot of a bounded pool (slices that continue each
/// other share a slot) and written by the writer's own thread. When every slot is taken the disk is the bottleneck: `take` refuses the slice,
/// the caller pauses the transfer (libcurl stops reading the socket, so TCP slows the server
/// down), and `onRoom` says when a slot is free again. Before that, when few slots are left,
/// `take` says so as it takes a slice, and the caller stops its transfer reading then, which
/// spares libcurl the copy a refused transfer keeps of what it had read. Memory stays bounded by the pool, and a
/// slow disk never holds up the network thread, nor the other transfers it serves.
///
/// The writer thread also opens the file first (naming, creating or reopening it, and
/// reserving its size can each wait for the disk), while the first slices already queue.
///
/// A small file's writer has no thread: it holds the whole file in memory and writes it with
/// one call when it finishes, on a Dispatch thread (see `init(holding:file:hooks:)`).
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
        /// The time between durable records (at least a second).
        var durableInterval: Duration
        /// Whether the records must be written at once (a new download), not only on change.
        var writeAtStart: Bool
    }

    /// Who to tell what, and a seam for tests.
    struct Hooks: Sendable {
        /// A queued write, a checkpoint or opening the file failed (on the writer's thread).
        var onError: @Sendable (DownloadError) -> Void
        /// Half the slots are free again (or none is in use) after `take` refused a slice (on
        /// the writer's thread).
        var onRoom: @Sendable () -> Void = {}
        /// Called before each write with its offset and size (tests make the disk slow with it).
        var beforeWrite: (@Sendable (Int64, Int) -> Void)?
        /// The file is open (on the writer's thread; at once for a holding writer).
        var onOpened: @Sendable (PartFile) -> Void = { _ in }
        /// These bytes are in the file: each write once done, and first what was written
        /// before (a resume), once the file is open (on the writer's thread).
        var onWritten: @Sendable (Range<Int64>) -> Void = { _ in }
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
        case finish(keepRecord: Bool, then: @Sendable (PartFile?) -> Void)
    }

    /// A slot being filled: slices that continue it are added until it is full, the next
    /// slice of its connection does not fit, or the writer thread comes for it.
    private struct OpenSlot {
        var slot: Slot
        var offset: Int64
        var count: Int
    }

    private struct State {
        var free: [Slot] = []
        var open: [OpenSlot] = []
        var allocated = 0
        var queue: [Item] = []
        var written = ByteRanges()
        var failure: DownloadError?
        /// Whether a resume record was ever saved.
        var recorded = false
        /// A slice was refused for want of a slot since the last `onRoom`.
        var refused = false
        /// The file, once open (the writer thread opens it; a holding writer has it at once).
        var file: PartFile?
    }

    private let slotSize: Int
    private let maxSlots: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let hooks: Hooks
    private let checkpoint: Checkpoint?
    private let held: Held?

    /// A writer with its own thread, which first opens the file with `open`, and at most
    /// `maxSlots` (at least 1) slots of `slotSize` bytes (allocated as needed), starting with
    /// `written` already on disk.
    init(
        opening open: @escaping @Sendable () throws(DownloadError) -> PartFile, slotSize: Int, maxSlots: Int,
        written: ByteRanges = ByteRanges(), checkpoint: Checkpoint? = nil, hooks: Hooks
    ) {
        precondition(maxSlots > 0, "a writer thread needs a slot")
        self.slotSize = slotSize
        self.maxSlots = maxSlots
        self.hooks = hooks
        self.checkpoint = checkpoint
        held = nil
        state.withLock { $0.written = written }
        IOThread.start(name: "slipstream-disk") { [self] in run(opening: open) }
    }

    /// A writer for a new `file` of `size` bytes that holds them all in memory and writes them
    /// when it finishes: no thread, no resume records, one write call. Meant for small files,
    /// where a thread costs more than the memory. `hooks.onError` is told when that write fails.
    init(holding size: Int, file: PartFile, hooks: Hooks) {
        slotSize = 0
        maxSlots = 0
        self.hooks = hooks
        checkpoint = nil
        held = Held(memory: HeldMemoryPool.shared.take(size), size: size)
        state.withLock { $0.file = file }
        hooks.onOpened(file)
    }

    /// Bytes written to the file so far.
    var written: ByteRanges { state.withLock { $0.written } }

    /// The slot memory allocated, in bytes: the writer's most, as slots are kept until it finishes.
    var slotMemory: Int { state.withLock { $0.allocated } * slotSize }

    /// Whether the writer has saved a resume record (then the records are on disk).
    var hasWrittenRecords: Bool { state.withLock { $0.recorded } }

    /// What `take` did with a slice.
    enum Taking: Equatable {
        /// Taken.
        case taken
        /// Taken, and the pool is nearly full (fewer than `reserveSlots` free): the caller
        /// stops its transfer reading more until `onRoom`, though the rest of what libcurl
        /// already read may still come, and finds room. A transfer refused instead keeps a copy
        /// of that rest in libcurl until it resumes.
        case takenNearlyFull
        /// Not taken: no slot is free (`onRoom` tells when there is room).
        case refused
    }

    /// Takes `bytes` for `offset`: held, or copied into free slots and queued for the writer
    /// thread. Throws when the file cannot be written (a failed queued write included). Called
    /// by one thread at a time (the download's connections all run on one engine thread).
    func take(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) -> Taking {
        guard !bytes.isEmpty else { return .taken }
        guard held == nil, bytes.count > slotSize else { return try takeSlot(bytes, at: offset) }
        // A slice bigger than a slot (libcurl's never are): in slot-sized parts, all or none.
        let parts = (bytes.count + slotSize - 1) / slotSize
        let room = try state.withLock { state throws(DownloadError) in
            if let failure = state.failure { throw failure }
            let room = state.free.count + maxSlots - state.allocated >= parts
            if !room { state.refused = true }
            return room
        }
        guard room else { return .refused }
        var taking = Taking.taken
        for start in stride(from: 0, to: bytes.count, by: slotSize) {
            let part = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + slotSize, bytes.count)])
            taking = try takeSlot(part, at: offset + Int64(start))
        }
        return taking
    }

    /// Slots kept free for what transfers already read: below this many, a slice taken says
    /// `.takenNearlyFull`.
    private var reserveSlots: Int { maxSlots / 4 }

    /// Takes at most a slot's worth of bytes (or holds them): added to the open slot it
    /// continues, if it fits, else copied into a new one. Contiguous slices so make one write
    /// of up to a slot (libcurl's slices are often an eighth of one).
    private func takeSlot(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) -> Taking {
        var queued = 0
        defer { for _ in 0..<queued { wake.signal() } }
        return try state.withLock { state throws(DownloadError) in
            if let failure = state.failure { throw failure }
            if let held {
                guard offset >= 0, offset + Int64(bytes.count) <= Int64(held.size) else {
                    throw DownloadError(.network, "more bytes came than the \(held.size) announced")
                }
                (held.memory + Int(offset)).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                state.written.insert(offset..<(offset + Int64(bytes.count)))
                return .taken
            }
            if let index = state.open.firstIndex(where: { $0.offset + Int64($0.count) == offset }) {
                let open = state.open[index]
                if open.count + bytes.count <= slotSize {
                    (open.slot.memory + open.count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    state.open[index].count += bytes.count
                    if state.open[index].count == slotSize {
                        queue(openSlot: index, &state)
                        queued += 1
                    }
                    return nearlyFull(&state)
                }
                // Its connection has moved on past it: written as it is.
                queue(openSlot: index, &state)
                queued += 1
            }
            let slot: Slot
            if let free = state.free.popLast() {
                slot = free
            } else if state.allocated < maxSlots {
                state.allocated += 1
                slot = Slot(memory: .allocate(byteCount: slotSize, alignment: 64))
            } else {
                // Every slot is taken: those still open are written as they are, for room.
                queued += queueOpenSlots(&state)
                state.refused = true
                return .refused
            }
            slot.memory.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            state.open.append(OpenSlot(slot: slot, offset: offset, count: bytes.count))
            // At most half the slots are open at once: the oldest goes first.
            if state.open.count > max(1, maxSlots / 2) {
                queue(openSlot: 0, &state)
                queued += 1
            }
            return nearlyFull(&state)
        }
    }

    /// `.takenNearlyFull` when fewer than `reserveSlots` slots are free (then `onRoom` is owed,
    /// as for a refusal), else `.taken` (lock held).
    private func nearlyFull(_ state: inout State) -> Taking {
        guard state.free.count + maxSlots - state.allocated < reserveSlots else { return .taken }
        state.refused = true
        return .takenNearlyFull
    }

    /// Moves open slot `index` to the writer thread's queue (lock held).
    private func queue(openSlot index: Int, _ state: inout State) {
        let open = state.open.remove(at: index)
        state.queue.append(.write(open.slot, count: open.count, offset: open.offset))
    }

    /// Moves every open slot to the queue (lock held); how many.
    private func queueOpenSlots(_ state: inout State) -> Int {
        defer { state.open.removeAll(keepingCapacity: true) }
        for open in state.open { state.queue.append(.write(open.slot, count: open.count, offset: open.offset)) }
        return state.open.count
    }

    /// Runs `then` with the file (nil when it never opened) on the writer thread once
    /// everything queued before is written (or failed), after a last durable record when
    /// `keepRecord`, and ends the thread. A holding writer writes what it holds on a Dispatch
    /// thread, then runs `then` there.
    func finish(keepRecord: Bool, then: @escaping @Sendable (PartFile?) -> Void) {
        if let held {
            DispatchQueue.global().async { [self] in
                writeHeld(held)
                then(state.withLock { $0.file })
            }
            return
        }
        let queued = state.withLock { state in
            defer { state.queue.append(.finish(keepRecord: keepRecord, then: then)) }
            return queueOpenSlots(&state) + 1
        }
        for _ in 0..<queued { wake.signal() }
    }

    private func run(opening open: @Sendable () throws(DownloadError) -> PartFile) {
        var recorder: Recorder?
        do throws(DownloadError) {
            let file = try open()
            let written = state.withLock { state in
                state.file = file
                return state.written
            }
            hooks.onOpened(file)
            for range in written { hooks.onWritten(range) }
            recorder = checkpoint.map { Recorder(checkpoint: $0, file: file) }
            if checkpoint?.writeAtStart == true { record(&recorder, durable: true) }
        } catch {
            fail(error)
        }
        while true {
            let timedOut = wake.wait(timeout: .now() + .milliseconds(100)) == .timedOut
            if timedOut {
                // Slots left open for a tenth of a second are written as they are.
                let queued = state.withLock { queueOpenSlots(&$0) }
                for _ in 0..<queued { wake.signal() }
            }
            let item = timedOut ? nil : state.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
            switch item {
            case nil:
                break
            case .finish(let keepRecord, let then):
                let file: PartFile? = state.withLock { state in
                    for slot in state.free { slot.memory.deallocate() }
                    state.free = []
                    return state.file
                }
                if keepRecord { keepDurableRecordOnly(&recorder) }
                then(file)
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
            fail(error)
        }
    }

    /// A last durable record for a resume; once it claims all the live record did (no write
    /// failed), the live record and the spare temp file go, so that a stopped download leaves
    /// its `.part` file and that one record only.
    private func keepDurableRecordOnly(_ recorder: inout Recorder?) {
        record(&recorder, durable: true)
        guard let kept = recorder, kept.durableClaim == kept.liveClaim, state.withLock({ $0.failure == nil }) else { return }
        kept.checkpoint.store.removeAllButDurable()
    }

    /// Records the first failure and tells it.
    private func fail(_ error: DownloadError) {
        state.withLock { if $0.failure == nil { $0.failure = error } }
        hooks.onError(error)
    }

    /// Writes the held bytes taken so far (unless a take failed) and hands their memory back.
    private func writeHeld(_ held: Held) {
        let (taken, failed, file) = state.withLock { ($0.written, $0.failure != nil, $0.file) }
        defer { HeldMemoryPool.shared.give(held.memory, size: held.size) }
        guard !failed, let file else { return }
        do throws(DownloadError) {
            for range in taken {
                hooks.beforeWrite?(range.lowerBound, Int(range.count))
                try file.write(
                    UnsafeRawBufferPointer(start: held.memory + Int(range.lowerBound), count: Int(range.count)),
                    at: range.lowerBound)
                hooks.onWritten(range)
            }
        } catch {
            fail(error)
        }
    }

    private func write(_ slot: Slot, count: Int, at offset: Int64) {
        var error: DownloadError?
        let file: PartFile? = state.withLock { $0.failure == nil ? $0.file : nil }
        if let file {
            hooks.beforeWrite?(offset, count)
            do throws(DownloadError) {
                try file.write(UnsafeRawBufferPointer(start: slot.memory, count: count), at: offset)
            } catch let failure {
                error = failure
            }
        }
        let room: Bool = state.withLock { state in
            state.free.append(slot)
            if error == nil, state.failure == nil {
                state.written.insert(offset..<(offset + Int64(count)))
            }
            // Room is told once half the slots are free again (or the queue is empty), not at
            // the first: each pause and resume costs a wake-up of the network thread, and a
            // transfer resumed for one slot would pause again at once.
            let free = state.free.count + maxSlots - state.allocated
            guard state.refused, free * 2 >= maxSlots || state.queue.isEmpty else { return false }
            state.refused = false
            return true
        }
        if let error { fail(error) } else { hooks.onWritten(offset..<(offset + Int64(count))) }
        if room { hooks.onRoom() }
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
        let durableDue = now - lastDurable >= max(checkpoint.durableInterval, .seconds(1))
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
            now - lastLive >= .milliseconds(100) || written.byteCount - liveClaim.byteCount >= Self.liveBurst
        {
            record.record(written)
            try checkpoint.store.saveLive(record)
            liveClaim = written
            lastLive = now
            return true
        }
        return false
    }
}
