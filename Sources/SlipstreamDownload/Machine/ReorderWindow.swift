/// The accounting of a download written in order to a stream (`DownloadDestination.stream`):
/// which bytes of the window ahead of the write position have arrived, which are ready to
/// write, and when a connection that ran ahead may deliver again. Pure: `OrderedWriter` holds
/// the bytes in a ring of `capacity` bytes (a byte at offset `o` lives at `o % capacity`) and
/// does the I/O; this says what goes where.
///
/// Bytes are taken only inside the window `position..<position + capacity` (`position` is the
/// first byte not yet written out), so the ring never holds more than `capacity` bytes, however
/// large the file. A slice beyond the window is refused: its connection pauses until the write
/// position has moved far enough for it (`wrote` says when).
struct ReorderWindow: Sendable, Equatable {
    /// Bytes held at most (the ring's size).
    let capacity: Int64
    /// The first byte not yet written out.
    private(set) var position: Int64 = 0
    /// One past the last byte handed to the writer (`position..<handedOut` is being written).
    private(set) var handedOut: Int64 = 0
    /// The first byte not yet arrived: everything before it is ready to write.
    private(set) var ready: Int64 = 0
    /// Bytes arrived beyond `ready` (after a gap another connection is still filling).
    private(set) var ahead = ByteRanges()
    /// The smallest end of a slice refused since room was last told; nil when none waits.
    private(set) var waitingEnd: Int64?

    /// A window of `capacity` bytes (at least 1) from offset 0.
    init(capacity: Int64) {
        precondition(capacity > 0, "a window needs room")
        self.capacity = capacity
    }

    /// Bytes in the ring now: arrived and not yet written out. Never more than `capacity`.
    var held: Int64 { ready + ahead.byteCount - position }

    /// Whether what holds bytes back is a gap at `ready` (a range at the write position still
    /// coming) rather than the writing: under half the window is ready and not yet written.
    var isHeldUpByAGap: Bool { (ready - position) * 2 < capacity }

    /// Where `offset` lives in the ring.
    func ringIndex(_ offset: Int64) -> Int { Int(offset % capacity) }

    /// Bytes `offset..<offset + count` arrived: true when they fit in the window (the caller
    /// copies them into the ring), false when they lie beyond it (nothing is taken; the caller
    /// pauses their connection until `wrote` tells room). Each byte arrives at most once, at
    /// or after the write position.
    mutating func arrive(at offset: Int64, count: Int) -> Bool {
        precondition(offset >= ready && !ahead.overlaps(offset..<offset + Int64(count)), "a byte arrived twice")
        let end = offset + Int64(count)
        guard end <= position + capacity else {
            waitingEnd = min(waitingEnd ?? end, end)
            return false
        }
        if offset == ready {
            ready = end
            // Bytes that arrived earlier beyond the gap this slice closed.
            if let first = ahead.ranges.first, first.lowerBound == ready {
                ready = first.upperBound
                ahead.remove(first)
            }
        } else {
            ahead.insert(offset..<end)
        }
        return true
    }

    /// The next bytes to hand to the writer, contiguous in the ring (they stop where the ring
    /// wraps); nil when none is ready. They count as handed out.
    mutating func nextWrite() -> Range<Int64>? {
        guard handedOut < ready else { return nil }
        let wrap = (handedOut / capacity + 1) * capacity
        let range = handedOut..<min(ready, wrap)
        handedOut = range.upperBound
        return range
    }

    /// `count` bytes handed out were written: the write position moves on. True when a
    /// refused slice now fits with an eighth of the window to spare, so the paused connections
    /// may deliver again: resuming them for less would pause them again at once. (The slice at
    /// `ready` always fits once what is handed out is written: no wait lasts for ever while the
    /// window is larger than a slice and its spare.)
    mutating func wrote(_ count: Int) -> Bool {
        precondition(position + Int64(count) <= handedOut, "wrote more than was handed out")
        position += Int64(count)
        guard let waiting = waitingEnd else { return false }
        let slack = capacity / 8
        guard waiting + slack <= position + capacity else { return false }
        waitingEnd = nil
        return true
    }
}
