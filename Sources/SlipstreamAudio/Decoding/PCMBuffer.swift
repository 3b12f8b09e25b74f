/// A reusable block of interleaved PCM bytes: a decoder appends into it, the player hands its
/// bytes to an output and empties it. Its storage is allocated once and grows only when a packet
/// needs more than ever before, so steady-state decoding allocates nothing.
///
/// Not thread-safe: it belongs to the player's playback thread.
public final class PCMBuffer {
    /// The format of the bytes it holds (set by whoever fills it).
    public var format: PCMFormat
    /// Bytes filled so far.
    public private(set) var count = 0
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int

    /// Creates an empty buffer with room for `capacity` bytes.
    public init(format: PCMFormat, capacity: Int = 64 * 1024) {
        self.format = format
        self.capacity = max(capacity, 16)
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The filled bytes, valid until the buffer is next changed.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// The filled bytes, writable in place (e.g. for volume scaling).
    public var mutableBytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage, count: count)
    }

    /// Whole frames filled so far.
    public var frameCount: Int { count / format.bytesPerFrame }

    /// Room for at least `minimumCount` more bytes after the filled ones; write there, then call
    /// `commit(_:)` with how many bytes were written.
    public func reserve(_ minimumCount: Int) -> UnsafeMutableRawBufferPointer {
        if capacity - count < minimumCount {
            var newCapacity = capacity
            while newCapacity - count < minimumCount { newCapacity *= 2 }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
            grown.copyMemory(from: storage, byteCount: count)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        return UnsafeMutableRawBufferPointer(start: storage + count, count: capacity - count)
    }

    /// Marks `byteCount` bytes written after `reserve(_:)` as filled.
    public func commit(_ byteCount: Int) {
        precondition(byteCount >= 0 && count + byteCount <= capacity, "PCMBuffer: commit past the reserved room")
        count += byteCount
    }

    /// Keeps, of the frames from frame `first` on (default: all of them), only those in
    /// `frames` (counted from `first`), moving them to follow the frames before `first`.
    public func keepFrames(_ frames: Range<Int>, after first: Int = 0) {
        let width = format.bytesPerFrame
        let base = storage + first * width
        let tail = frameCount - first
        let lower = min(max(frames.lowerBound, 0), tail)
        let upper = min(max(frames.upperBound, lower), tail)
        if lower > 0 { base.copyMemory(from: base + lower * width, byteCount: (upper - lower) * width) }
        count = (first + upper - lower) * width
    }

    /// Appends `other`'s bytes (of the same format).
    public func append(_ other: PCMBuffer) {
        let room = reserve(other.count)
        room.baseAddress!.copyMemory(from: other.storage, byteCount: other.count)
        commit(other.count)
    }

    /// Empties the buffer (its storage is kept).
    public func removeAll() { count = 0 }
}
