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
        guard !readers.isEmpty, let map, let (gap, window) = mostUrgentGap(in: map) else { return nil }
        if let id = gap.inside { return changeMap { $0.split(id, at: gap.offset) } ?? nil }
        return changeMap { $0.assign(freeAt: gap.offset, upTo: window.pieceSize(at: gap.offset)) } ?? nil
    }

    /// When a reader's next piece is brought by no connection and every connection is busy,
    /// the connection whose range lies furthest from every reader (the one with the most left
    /// outside all windows) stops; its range goes back to the pool, and its end makes room for
    /// a connection where the reader waits. A seek ahead costs one request, not a wait.
    private mutating func yieldForReaders() -> [Action] {
        guard let map, let (gap, window) = mostUrgentGap(in: map), gap.offset < window.offset + window.pieceSize else {
            return []
        }
        let limit = rangeLies > 0 ? 1 : settings.connections
        guard connections.count >= limit else { return [] }
        let windows = Array(readers.values)
        let candidates = connections.compactMap { number, connection -> (number: Int, remaining: Int64)? in
            guard connection.dropped == nil, let id = connection.assignment, let assignment = map.assignment(id),
                !windows.contains(where: { $0.overlaps(assignment.next..<assignment.end) })
            else { return nil }
            return (number, assignment.remaining)
        }
        guard let victim = candidates.max(by: { ($0.remaining, $1.number) < ($1.remaining, $0.number) }) else { return [] }
        connections[victim.number]?.dropped = .yielded
        return [.cancel(connection: victim.number)]
    }

    /// The first byte of a reader's window that no connection brings in time, over all readers:
    /// the one the reader needs soonest (in seconds of its reading, or in bytes when the rates
    /// are unknown).
    private func mostUrgentGap(in map: PieceMap) -> (gap: (offset: Int64, inside: Int?), window: ReaderWindow)? {
        var best: (gap: (offset: Int64, inside: Int?), window: ReaderWindow, due: Double)?
        for id in readers.keys.sorted() {
            guard let window = readers[id], let gap = firstUncovered(window, in: map) else { continue }
            let distance = Double(gap.offset - window.offset)
            let due = window.bytesPerSecond.map { distance / max($0, 1) } ?? distance
            if best == nil || due < best!.due { best = (gap, window, due) }
        }
        return best.map { ($0.gap, $0.window) }
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
