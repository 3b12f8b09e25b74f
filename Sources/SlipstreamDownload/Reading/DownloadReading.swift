import Dispatch
import Glibc
import Synchronization

/// What the readers of one download share: which bytes of its file are written (the writer's
/// own record, told after each write; never guessed from the file's contents), a descriptor
/// that reads the file (named or not, and after its rename), where each reader reads, and who
/// waits for which byte. The download's job tells it of the file, the writes, the size and the
/// end; the readers ask it for bytes and are woken when theirs are written.
///
/// Where a reader reads goes to the download's machine through `onMove` (the job feeds
/// `readerMoved`): when it starts, when it jumps, when it has to wait, and every
/// `ReaderWindow.pieceSize / 2` bytes as it goes.
final class DownloadReading: Sendable {
    /// How a read at an offset stands.
    enum Availability: Sendable, Equatable {
        /// This many bytes (at least one) are written from the offset on.
        case ready(Int64)
        /// The offset is at or past the end of the file.
        case end
        /// Not written yet.
        case waiting
    }

    private struct Waiter {
        var offset: Int64
        var wake: @Sendable () -> Void
    }

    private struct Reader {
        /// The window the machine was last told.
        var told: ReaderWindow?
        var bytesPerSecond: Double?
    }

    private struct State {
        var descriptor: Int32 = -1
        var written = ByteRanges()
        var size: Int64?
        var outcome: Result<Void, DownloadError>?
        var readers: [Int: Reader] = [:]
        var nextReader = 1
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 1
    }

    private let state = Mutex(State())
    /// Tells the download's machine where reader `id` reads (nil: it stopped); never called
    /// with the lock held.
    private let mover = Mutex<(@Sendable (_ reader: Int, _ window: ReaderWindow?) -> Void)?>(nil)

    init() {}

    /// Sets who is told where each reader reads (the job, once it exists).
    func onMove(_ tell: @escaping @Sendable (_ reader: Int, _ window: ReaderWindow?) -> Void) {
        mover.withLock { $0 = tell }
    }

    private func onMove(_ reader: Int, _ window: ReaderWindow?) {
        mover.withLock { $0 }?(reader, window)
    }

    deinit {
        let descriptor = state.withLock { $0.descriptor }
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: What the job tells (the writer's thread, the engine's, any)

    /// The writer opened the download's file (again, after a stream's restart: what was
    /// written before counts no more): readers read it through a descriptor of their own.
    func fileOpened(_ file: PartFile) {
        let descriptor = open(file.readablePath, O_RDONLY | O_CLOEXEC)
        let old = state.withLock { state in
            defer {
                state.descriptor = descriptor
                state.written = ByteRanges()
            }
            return state.descriptor
        }
        if old >= 0 { close(old) }
    }

    /// The file's size, once the first answer told it.
    func sized(_ size: Int64?) {
        state.withLock { $0.size = size }
    }

    /// `range` of the file is written: readers waiting for it are woken.
    func written(_ range: Range<Int64>) {
        let woken: [Waiter] = state.withLock { state in
            state.written.insert(range)
            guard !state.waiters.isEmpty else { return [] }
            let ready = state.waiters.filter { range.contains($0.value.offset) }
            for key in ready.keys { state.waiters[key] = nil }
            return Array(ready.values)
        }
        for waiter in woken { waiter.wake() }
    }

    /// The download ended: complete (every byte written; a stream's size is what it wrote), or
    /// failed with `error`. Every waiter is woken: a complete file has every byte, and a failed
    /// one will never get those it waits for.
    func ended(_ outcome: Result<Void, DownloadError>) {
        let woken: [Waiter] = state.withLock { state in
            state.outcome = outcome
            if case .success = outcome, state.size == nil { state.size = state.written.ranges.last?.upperBound ?? 0 }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.wake() }
    }

    // MARK: What readers ask (any thread)

    /// A new reader at `offset`, reading `bytesPerSecond` when known.
    func addReader(at offset: Int64, bytesPerSecond: Double?) -> Int {
        let (id, window) = state.withLock { state in
            let id = state.nextReader
            state.nextReader += 1
            let window = ReaderWindow(offset: offset, bytesPerSecond: bytesPerSecond)
            state.readers[id] = Reader(told: window, bytesPerSecond: bytesPerSecond)
            return (id, window)
        }
        onMove(id, window)
        return id
    }

    /// Reader `id` is done: its window goes.
    func removeReader(_ id: Int) {
        guard state.withLock({ $0.readers.removeValue(forKey: id) }) != nil else { return }
        onMove(id, nil)
    }

    /// Reader `id` reads `bytesPerSecond` from now on.
    func setRate(_ bytesPerSecond: Double?, of id: Int) {
        let window: ReaderWindow? = state.withLock { state in
            guard var reader = state.readers[id], reader.bytesPerSecond != bytesPerSecond else { return nil }
            reader.bytesPerSecond = bytesPerSecond
            let window = reader.told.map { ReaderWindow(offset: $0.offset, bytesPerSecond: bytesPerSecond) }
            reader.told = window
            state.readers[id] = reader
            return window
        }
        if let window { onMove(id, window) }
    }

    /// How a read at `offset` by reader `id` stands; the machine is told where the reader is
    /// when it jumped, moved on half a piece, or must wait.
    func availability(at offset: Int64, for id: Int) -> Availability {
        let (availability, window) = state.withLock { state -> (Availability, ReaderWindow?) in
            let availability = Self.availability(at: offset, in: state)
            guard var reader = state.readers[id] else { return (availability, nil) }
            let told = reader.told
            let moved = told.map { offset < $0.offset || offset - $0.offset >= $0.pieceSize / 2 } ?? true
            guard moved || (availability == .waiting && told?.offset != offset) else { return (availability, nil) }
            let window = ReaderWindow(offset: offset, bytesPerSecond: reader.bytesPerSecond)
            reader.told = window
            state.readers[id] = reader
            return (availability, window)
        }
        if let window { onMove(id, window) }
        return availability
    }

    private static func availability(at offset: Int64, in state: State) -> Availability {
        if let size = state.size, offset >= size { return .end }
        if let run = state.written.range(containing: offset) { return .ready(run.upperBound - offset) }
        if case .success = state.outcome { return .end }
        return .waiting
    }

    /// Calls `wake` once the byte at `offset` is written or the download ended (at once if
    /// either is so already). Returns a key for `cancelWait`.
    func wait(for offset: Int64, wake: @escaping @Sendable () -> Void) -> Int {
        let (key, now) = state.withLock { state -> (Int, Bool) in
            let key = state.nextWaiter
            state.nextWaiter += 1
            if state.outcome != nil || Self.availability(at: offset, in: state) != .waiting { return (key, true) }
            state.waiters[key] = Waiter(offset: offset, wake: wake)
            return (key, false)
        }
        if now { wake() }
        return key
    }

    /// Forgets a wait (its `wake` will not be called unless it is being called already).
    func cancelWait(_ key: Int) {
        state.withLock { _ = $0.waiters.removeValue(forKey: key) }
    }

    /// Why a read at `offset` that waited cannot be answered: the download's error, once it
    /// failed and the byte is not written; nil otherwise.
    func failure(at offset: Int64) -> DownloadError? {
        state.withLock { state in
            guard case .failure(let error) = state.outcome, Self.availability(at: offset, in: state) == .waiting else {
                return nil
            }
            return error
        }
    }

    /// Reads up to `buffer.count` written bytes at `offset` (which `availability` said are
    /// ready) from the file. Blocking: call it on a thread of its own, not the Swift
    /// concurrency pool's.
    func pread(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(DownloadError) -> Int {
        let descriptor = state.withLock { $0.descriptor }
        while true {
            let count = Glibc.pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw DownloadError(.disk, "cannot read the download's file at byte \(offset): \(FileSystem.lastError)")
        }
    }
}
