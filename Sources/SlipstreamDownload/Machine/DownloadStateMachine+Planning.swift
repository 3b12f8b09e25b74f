extension DownloadStateMachine {
    /// New connections for idle capacity, each with an assignment of the piece map (none while
    /// a retry waits: see `retryDue`). Connections
    /// beyond the first need a permit of the host limit, when there is one: without one in
    /// hand, permits are asked for (unless `asking` is false: the last answer was short, and a
    /// release will tell `permitFreed`).
    mutating func planConnections(at now: Double, asking: Bool = true) -> [Action] {
        guard map != nil, fatal == nil else { return [] }
        // While a retry waits for its delay no connection opens (the running ones carry on):
        // the wait told in `retrying` is the wait taken, however soon other connections end.
        guard scheduledRetries == 0 else { return releaseSparePermits(wakingWaiters: false) }
        var actions: [Action] = []
        let limit = rangeLies > 0 ? 1 : settings.connections
        var needsPermits = false
        while connections.count < limit {
            if settings.limitsHosts, connections.count >= 1 + extraPermits {
                needsPermits = true
                break
            }
            let inOrderPieceSize = settings.inOrderPieceSize
            guard
                let assignment = readerAssignment() ?? headRace() ?? endGameSplit(at: now)
                    ?? changeMap({ $0.assign(inOrderUpTo: inOrderPieceSize) }) ?? nil
            else { break }
            let mirror = chooseMirror(at: now)
            let number = addConnection(
                Connection(
                    mirror: mirror, assignment: assignment.id, requestStart: assignment.start,
                    requestEnd: assignment.end, started: now, lastData: now))
            actions.append(
                .request(
                    Request(
                        connection: number, url: mirrors[mirror].url, start: assignment.start,
                        end: assignment.end)))
        }
        // An idle connection found nothing to take: a victim waiting for its next burst may
        // give its whole remainder back.
        if !needsPermits, connections.count < limit {
            actions += endGameTakeover(at: now)
        }
        if needsPermits, asking, !permitRequestPending, hasWorkForAnotherConnection {
            permitRequestPending = true
            actions.append(.requestPermits(limit - connections.count))
        }
        // A permit taken for work there was not: given back as if never taken.
        return fittingRequests(actions) + releaseSparePermits(wakingWaiters: false)
    }

    /// The host limit granted `count` permits (perhaps fewer than asked; then a release will
    /// tell `permitFreed`).
    mutating func permitsGranted(_ count: Int, at now: Double) -> [Action] {
        permitRequestPending = false
        extraPermits += count
        return planConnections(at: now, asking: false)
    }

    /// A permit of the host limit came free: more connections, if there is work for them.
    mutating func permitFreed(at now: Double) -> [Action] {
        planConnections(at: now)
    }

    /// Gives back the permits no connection uses, waking the downloads that wait for one
    /// unless they were taken just now.
    mutating func releaseSparePermits(wakingWaiters: Bool) -> [Action] {
        let spare = extraPermits - max(0, connections.count - 1)
        guard settings.limitsHosts, spare > 0 else { return [] }
        extraPermits -= spare
        return [.releasePermits(spare, wakingWaiters: wakingWaiters)]
    }

    /// Whether `assign()` would find work: a free run, or a remainder worth splitting.
    var hasWorkForAnotherConnection: Bool {
        guard let map else { return false }
        return !map.free.isEmpty || map.assignments.values.contains { $0.remaining / 2 >= map.minimumSplitSize }
    }

    /// Written in order, the range at the write position holds up every byte after it: when
    /// its connection crawls (under a third of the median speed), an idle connection takes the
    /// back half of its remainder, down to 64 KiB, before any range further on.
    private mutating func headRace() -> PieceMap.Assignment? {
        guard settings.inOrderPieceSize != nil, settings.dropSlowConnections, let map,
            let head = connections.values.compactMap({ connection in
                connection.assignment.flatMap { map.assignment($0) }.map { (connection, $0) }
            }).min(by: { $0.1.next < $1.1.next }),
            head.0.pausedFor == nil, (map.free.ranges.first?.lowerBound ?? .max) > head.1.next,
            let speed = head.0.speed ?? head.0.sliceSpeed(over: Self.firstMeasureAge)
        else { return nil }
        let others = connections.values.compactMap(\.speed) + recentSpeeds.map(\.speed)
        guard others.count >= 2, speed * 3 < others.sorted()[others.count / 2] else { return nil }
        return changeMap { $0.split(head.1.id, minimumPart: 64 << 10) } ?? nil
    }
}
