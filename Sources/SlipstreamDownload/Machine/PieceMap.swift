/// Which bytes of a file of known size are done, which are being fetched (and by which
/// connection), and which are free. A pure value: the downloader asks it what to fetch
/// next and tells it what was written.
///
/// Every byte is in exactly one of three places: `done`, `free`, or the unwritten part
/// (`next..<end`) of exactly one assignment. A connection that starts or finishes calls
/// `assign()`, which hands out the largest free run, or else steals the back half of the
/// largest in-flight remainder when both halves are at least `minimumSplitSize` (aria2 and
/// axel style work stealing): a slow connection never holds up the end of a download.
package struct PieceMap: Sendable, Equatable {
    /// Work for one connection: bytes `next..<end` still to be written.
    package struct Assignment: Sendable, Equatable {
        /// Identifies the assignment in `commit`, `release` and `assignment(_:)`.
        package let id: Int
        /// The first byte of the assignment as handed out (where its request starts).
        package let start: Int64
        /// The next byte to write.
        package fileprivate(set) var next: Int64
        /// One past the last byte to write. Shrinks when another connection steals the tail.
        package fileprivate(set) var end: Int64

        /// Bytes still to write.
        package var remaining: Int64 { end - next }
    }

    /// The file size in bytes.
    package let size: Int64
    /// The smallest part that `assign()` splits off a running assignment, in bytes.
    package let minimumSplitSize: Int64
    /// Bytes written.
    package private(set) var done: ByteRanges
    /// Bytes neither written nor assigned.
    package private(set) var free: ByteRanges
    /// Assignments by id.
    package private(set) var assignments: [Int: Assignment] = [:]
    private var nextID = 1

    /// A map of a file of `size` bytes of which `done` are already written (e.g. on resume).
    package init(size: Int64, minimumSplitSize: Int64 = 1 << 20, done: ByteRanges = ByteRanges()) {
        precondition(size >= 0 && minimumSplitSize > 0)
        self.size = size
        self.minimumSplitSize = minimumSplitSize
        var clamped = done
        clamped.remove(size..<Int64.max)
        self.done = clamped
        var free = ByteRanges([0..<size])
        for range in clamped { free.remove(range) }
        self.free = free
    }

    /// Whether every byte is written.
    package var isComplete: Bool { done.byteCount == size }

    /// Bytes written.
    package var completedBytes: Int64 { done.byteCount }

    /// The assignment with this id, while it runs.
    package func assignment(_ id: Int) -> Assignment? { assignments[id] }

    /// New work for an idle connection: the largest free run, else the back half of the
    /// largest in-flight remainder when each half is at least `minimumSplitSize`; nil when
    /// there is nothing worth fetching on another connection.
    package mutating func assign() -> Assignment? {
        if let run = free.largest {
            free.remove(run)
            return add(run)
        }
        return splitLargest()
    }

    /// New work for a connection of a download written in order: the first `limit` bytes of
    /// the lowest free run, else the back half of the largest in-flight remainder as `assign()`
    /// does; with no `limit`, `assign()`.
    package mutating func assign(inOrderUpTo limit: Int64?) -> Assignment? {
        guard let limit else { return assign() }
        guard let run = free.ranges.first else { return splitLargest() }
        let piece = run.lowerBound..<min(run.upperBound, run.lowerBound + max(limit, 1))
        free.remove(piece)
        return add(piece)
    }

    /// The back half of the largest in-flight remainder, when each half is at least
    /// `minimumSplitSize`.
    private mutating func splitLargest() -> Assignment? {
        guard
            let victim = assignments.values.max(by: { a, b in
                a.remaining != b.remaining ? a.remaining < b.remaining : a.id > b.id
            })
        else { return nil }
        return split(victim.id, minimumPart: minimumSplitSize)
    }

    /// Splits the unwritten part of assignment `id` in two and hands out the back half, when
    /// each half is at least `minimumPart` bytes: the end game, where a slow connection's tail is
    /// worth taking even below `minimumSplitSize`. Nil otherwise.
    package mutating func split(_ id: Int, minimumPart: Int64) -> Assignment? {
        guard let victim = assignments[id], victim.remaining / 2 >= max(minimumPart, 1) else { return nil }
        return split(id, at: victim.next + victim.remaining / 2)
    }

    /// Hands out the unwritten part of assignment `id` from `offset` on, when `offset` lies
    /// after its next byte and before its end (the end game cuts where both parts end at the
    /// same time at their connections' speeds; a reader of the running download needs the bytes
    /// from `offset` on sooner than the assignment's connection would bring them). Nil otherwise.
    package mutating func split(_ id: Int, at offset: Int64) -> Assignment? {
        guard let victim = assignments[id], offset > victim.next, offset < victim.end else { return nil }
        assignments[id]?.end = offset
        return add(offset..<victim.end)
    }

    /// The free run that starts exactly at `offset`, at most `limit` bytes of it, as an
    /// assignment (a resumed download's first request asks for the first byte it is missing);
    /// nil when no run starts there.
    package mutating func assign(from offset: Int64, upTo limit: Int64? = nil) -> Assignment? {
        guard let whole = free.ranges.first(where: { $0.lowerBound == offset }) else { return nil }
        let run = limit.map { whole.lowerBound..<min(whole.upperBound, whole.lowerBound + max($0, 1)) } ?? whole
        free.remove(run)
        return add(run)
    }

    /// At most `limit` bytes of free bytes from `offset`, which must be free, as an assignment
    /// (a reader of the running download waits there); nil when `offset` is not free.
    package mutating func assign(freeAt offset: Int64, upTo limit: Int64) -> Assignment? {
        guard let run = free.range(containing: offset) else { return nil }
        let piece = offset..<min(run.upperBound, offset + max(limit, 1))
        free.remove(piece)
        return add(piece)
    }

    /// The running assignment whose unwritten bytes hold `offset`, if any.
    package func assignment(holding offset: Int64) -> Assignment? {
        assignments.values.first { $0.next <= offset && offset < $0.end }
    }

    private mutating func add(_ range: Range<Int64>) -> Assignment {
        let assignment = Assignment(id: nextID, start: range.lowerBound, next: range.lowerBound, end: range.upperBound)
        nextID += 1
        assignments[assignment.id] = assignment
        return assignment
    }

    /// Records that `count` bytes were written at the assignment's `next` offset. `count` must
    /// not exceed `remaining`. Returns true when the assignment is finished (and removed).
    @discardableResult
    package mutating func commit(_ id: Int, count: Int64) -> Bool {
        guard var assignment = assignments[id] else {
            preconditionFailure("commit to unknown assignment \(id)")
        }
        precondition(count >= 0 && count <= assignment.remaining, "commit beyond the assignment's end")
        done.insert(assignment.next..<(assignment.next + count))
        assignment.next += count
        if assignment.remaining == 0 {
            assignments[id] = nil
            return true
        }
        assignments[id] = assignment
        return false
    }

    /// Ends an assignment early (its connection failed or stopped): what it did not write goes
    /// back to the free pool. Does nothing for an unknown id.
    package mutating func release(_ id: Int) {
        guard let assignment = assignments.removeValue(forKey: id) else { return }
        free.insert(assignment.next..<assignment.end)
    }

    /// Grows a running assignment over the free run that starts exactly at its end, up to
    /// `limit` (exclusive): a connection whose request still covers those bytes takes them
    /// back instead of a new request. Returns the new end.
    @discardableResult
    package mutating func extend(_ id: Int, upTo limit: Int64) -> Int64 {
        guard var assignment = assignments[id] else { return 0 }
        guard let run = free.ranges.first(where: { $0.lowerBound == assignment.end }), limit > assignment.end else {
            return assignment.end
        }
        let newEnd = min(run.upperBound, limit)
        free.remove(assignment.end..<newEnd)
        assignment.end = newEnd
        assignments[id] = assignment
        return newEnd
    }

    /// Checks that every byte is in exactly one place; for tests and debugging.
    package func isConsistent() -> Bool {
        var covered = done
        var total = done.byteCount + free.byteCount
        for range in free {
            if covered.overlaps(range) { return false }
            covered.insert(range)
        }
        for assignment in assignments.values {
            let range = assignment.next..<assignment.end
            if range.isEmpty || covered.overlaps(range) { return false }
            covered.insert(range)
            total += assignment.remaining
        }
        return total == size && covered.byteCount == size
            && (size == 0 || covered.ranges == [0..<size])
    }
}
