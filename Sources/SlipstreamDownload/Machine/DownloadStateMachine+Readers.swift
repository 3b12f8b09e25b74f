extension DownloadStateMachine {
    /// Reader `id` of the running download reads at `window` now (nil: it stopped reading).
    /// Its window comes before the rest of the file: idle connections take its first bytes no
    /// connection brings in time, and when it waits for bytes no connection will bring soon
    /// while every connection is busy elsewhere, one of those stops to make room
    /// (`yieldForReaders`). The rest of the file keeps downloading on the others.
    mutating func readerMoved(_ id: Int, to window: ReaderWindow?, at now: Double) -> [Action] {
        readers[id] = window
        guard window != nil, map != nil, fatal == nil else { return [] }
        return yieldForReaders() + planConnections(at: now)
    }

    /// Work in a reader's window for an idle connection: the most urgent reader's first byte
    /// that no connection brings in time, as a piece of the window when it is free, else split
    /// off the assignment that holds it. Nil when every window is covered.
    mutating func readerAssignment() -> PieceMap.Assignment? {
        guard !readers.isEmpty, let map, let (gap, window, _) = mostUrgentGap(in: map) else { return nil }
        if let id = gap.inside { return changeMap { $0.split(id, at: gap.offset) } ?? nil }
        return changeMap { $0.assign(freeAt: gap.offset, upTo: window.pieceSize(at: gap.offset)) } ?? nil
    }

    /// When a reader waits for bytes (its head, `ReaderWindow.head`) no connection brings and
    /// every connection is busy, one stops to make room: its range goes back to the pool, and
    /// its end makes room for a connection where the reader waits. A seek ahead costs one
    /// request, not a wait. The one that stops is the one with the most left outside every
    /// window, else (every connection works for a reader) one that brings no reader's head.
    private mutating func yieldForReaders() -> [Action] {
        guard let map, let urgent = mostUrgentGap(in: map), urgent.isHead else { return [] }
        let limit = rangeLies > 0 ? 1 : settings.connections
        guard connections.count >= limit else { return [] }
        let windows = Array(readers.values)
        let candidates = connections.compactMap { number, connection -> (number: Int, tier: Int, remaining: Int64)? in
            guard connection.dropped == nil, let id = connection.assignment, let assignment = map.assignment(id) else { return nil }
            let range = assignment.next..<assignment.end
            if !windows.contains(where: { $0.overlaps(range) }) { return (number, 0, assignment.remaining) }
            if !windows.contains(where: { $0.head.overlaps(range) }) { return (number, 1, assignment.remaining) }
            return nil
        }
        guard
            let victim = candidates.min(by: { ($0.tier, -$0.remaining, $0.number) < ($1.tier, -$1.remaining, $1.number) })
        else { return [] }
        connections[victim.number]?.dropped = .yielded
        return [.cancel(connection: victim.number)]
    }

    /// The first byte of a reader's window that no connection brings in time, over all readers:
    /// a reader's head before any window's rest (a reader that reads as fast as it can never
    /// starves another that waits), then the byte needed soonest in seconds of its reader's
    /// reading (`ReaderWindow.assumedBytesPerSecond` where the rate is unknown).
    private func mostUrgentGap(in map: PieceMap) -> (gap: (offset: Int64, inside: Int?), window: ReaderWindow, isHead: Bool)? {
        var best: (gap: (offset: Int64, inside: Int?), window: ReaderWindow, isHead: Bool, due: Double)?
        for id in readers.keys.sorted() {
            guard let window = readers[id], let gap = firstUncovered(window, in: map) else { continue }
            let isHead = window.head.contains(gap.offset)
            let due = Double(gap.offset - window.offset) / max(window.bytesPerSecond ?? ReaderWindow.assumedBytesPerSecond, 1)
            if let current = best, (current.isHead ? 0 : 1, current.due) <= (isHead ? 0 : 1, due) { continue }
            best = (gap, window, isHead, due)
        }
        return best.map { ($0.gap, $0.window, $0.isHead) }
    }

    /// The first byte of `window` that is neither written nor brought in time by a running
    /// connection (see `reach`): free, or further into an assignment than its connection
    /// reaches (`inside` names the assignment). Nil when the window is covered.
    private func firstUncovered(_ window: ReaderWindow, in map: PieceMap) -> (offset: Int64, inside: Int?)? {
        let end = min(map.size, window.end)
        var position = window.offset
        while position < end {
            if let done = map.done.range(containing: position) {
                position = done.upperBound
                continue
            }
            if map.free.range(containing: position) != nil { return (position, nil) }
            guard let assignment = map.assignment(holding: position) else { return nil }
            let reached = assignment.next + reach(of: assignment, for: window)
            if position >= reached { return (position, assignment.id) }
            position = min(assignment.end, reached)
        }
        return nil
    }

    /// How many bytes past its next one an assignment's connection brings in time for
    /// `window`: what it fetches while the reader reads the piece there (the whole piece when
    /// either speed is unknown), at least `ReaderWindow.headPiece`.
    private func reach(of assignment: PieceMap.Assignment, for window: ReaderWindow) -> Int64 {
        let piece = window.pieceSize(at: assignment.next)
        guard let speed = connections.values.first(where: { $0.assignment == assignment.id })?.speed,
            let rate = window.bytesPerSecond, rate > 0
        else { return piece }
        let bytes = speed / rate * Double(piece)
        return min(piece, max(ReaderWindow.headPiece, bytes.isFinite ? Int64(bytes) : piece))
    }
}
