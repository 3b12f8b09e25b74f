extension DownloadStateMachine {
    /// The smallest part the end game hands to another connection, in bytes.
    static let minimumEndGamePart: Int64 = 64 << 10

    /// A running assignment as the end game sees it: its connection, its unwritten part, its
    /// connection's expected speed (bytes per second) and the seconds until its next byte.
    private typealias Remainder = (connection: Int, id: Int, next: Int64, remaining: Int64, speed: Double, wait: Double)

    /// What the end game weighs: the running assignments, the speed typical of the download
    /// (the median of the measured ones) and its typical set-up time; nil unless nothing is
    /// free and a speed is measured.
    private func endGameView(at now: Double) -> (running: [Remainder], typical: Double, setup: Double)? {
        guard settings.dropSlowConnections, let map, map.free.isEmpty, let typical = typicalSpeed, typical > 0 else {
            return nil
        }
        let setup = typicalSetupTime
        let running: [Remainder] = connections.sorted { $0.key < $1.key }.compactMap { number, connection in
            guard connection.dropped == nil, let id = connection.assignment, let assignment = map.assignment(id) else {
                return nil
            }
            let speed = max(expectedSpeed(of: connection, typical: typical, at: now), 1)
            // Until its next byte: its set-up, or (a server that sends in bursts) what is left
            // of the longest pause it took so far.
            let wait =
                connection.firstData == nil
                ? max(0, connection.started + setup - now) : max(0, connection.longestPause - (now - connection.lastData))
            return (number, id, assignment.next, assignment.remaining, speed, wait)
        }
        return (running, typical, setup)
    }

    /// When a running assignment is expected to end.
    private static func end(_ remainder: Remainder) -> Double {
        remainder.wait + Double(remainder.remaining) / remainder.speed
    }

    /// The end game: nothing is free, and a connection is idle. It takes a part of the tail of
    /// the running assignment expected to end last (the victim), sized by expected end times:
    /// the running connections at their speeds (`expectedSpeed`) after what is left of the
    /// longest pause each took between its bytes (a server that sends in bursts), the idle
    /// ones at the speed typical of the download (the median of the measured ones) after the
    /// set-up time its requests took to their first byte. Its part is its share of the work
    /// left, were the running connections and as many idle ones as get a share of at least
    /// `minimumEndGamePart` to end together; else (a small remainder) the tail that makes the
    /// victim and it end together. Taken only when the victim's end comes sooner by at least
    /// the set-up time; nil before any speed is measured (the piece map's halves do at the
    /// start).
    ///
    /// Before, a remainder was split in halves: a connection twenty times slower than the
    /// others kept half its range and the others waited for it, and below twice
    /// `minimumSplitSize` only a crawler's was split at all. Shares take a slow connection's
    /// range bit by bit, each idle connection a part it ends with the rest, and leave the fast
    /// ones' requests whole (a request cut short closes its connection).
    mutating func endGameSplit(at now: Double) -> PieceMap.Assignment? {
        guard let (running, typical, setup) = endGameView(at: now) else { return nil }
        guard let victim = running.max(by: { Self.end($0) < Self.end($1) }) else { return nil }
        let work = running.reduce(0) { $0 + Double($1.remaining) + $1.speed * $1.wait }
        let speeds = running.reduce(0) { $0 + $1.speed }
        var part: Int64 = 0
        for idle in stride(from: max(1, settings.connections - connections.count), through: 1, by: -1) {
            // When all would end together, `idle` idle ones among them; this one's share is what
            // it fetches by then, at most what the victim would fetch after then.
            let together = (work + Double(idle) * typical * setup) / (speeds + Double(idle) * typical)
            let excess = Double(victim.remaining) - victim.speed * max(0, together - victim.wait)
            part = Int64(max(0, min(typical * (together - setup), excess)))
            if part >= Self.minimumEndGamePart { break }
        }
        if part < Self.minimumEndGamePart {
            // The victim and this one end together: `wait + kept / speed = setup + (remaining - kept) / typical`.
            let kept = victim.speed * ((setup - victim.wait) * typical + Double(victim.remaining)) / (typical + victim.speed)
            part = victim.remaining - Int64(min(max(kept, 0), Double(victim.remaining)))
        }
        guard part >= Self.minimumEndGamePart, Double(part) / victim.speed >= setup else { return nil }
        return changeMap { $0.split(victim.id, at: victim.next + victim.remaining - part) } ?? nil
    }

    /// The end game's last move, when no part is worth splitting off: the victim waits (a
    /// server that sends in bursts pauses between them: nginx's `limit_rate` a tenth of a
    /// second) longer than an idle connection takes to bring its whole remainder, by at least a
    /// set-up. It stops, and its range goes back to the pool for the idle connections: what it
    /// kept would wait for its next burst, however small. Returns its cancel, or nothing.
    mutating func endGameTakeover(at now: Double) -> [Action] {
        guard let (running, typical, setup) = endGameView(at: now),
            let victim = running.max(by: { Self.end($0) < Self.end($1) }), victim.wait > 0,
            2 * setup + Double(victim.remaining) / typical < Self.end(victim)
        else { return [] }
        connections[victim.connection]?.dropped = .slow
        return [.cancel(connection: victim.connection)]
    }

    /// The median of the speeds measured of the running connections and of those that ended
    /// lately (bytes per second); nil before any was measured.
    private var typicalSpeed: Double? {
        let speeds = (connections.values.compactMap(\.speed) + recentSpeeds.map(\.speed)).sorted()
        return speeds.isEmpty ? nil : speeds[speeds.count / 2]
    }

    /// The median time the running connections took from their request to their first byte
    /// (seconds; 0 when none has one yet).
    private var typicalSetupTime: Double {
        let times = connections.values.compactMap { connection in connection.firstData.map { $0 - connection.started } }.sorted()
        return times.isEmpty ? 0 : times[times.count / 2]
    }

    /// A running connection's speed from now on: its mean since its first byte, once that is
    /// a tenth of a second ago (a server that limits each connection sends in bursts, which
    /// the watchdog's looks of half a second each measure a tenth too high or too low), else
    /// the watchdog's measure, else the typical one.
    private func expectedSpeed(of connection: Connection, typical: Double, at now: Double) -> Double {
        if let first = connection.firstData, now - first >= 0.1 { return Double(connection.bytesAfterFirst) / (now - first) }
        return connection.speed ?? typical
    }

    /// The watchdog's look for the end game: an idle connection takes a straggler's tail now
    /// that its speed is measured (no transfer may end before it does).
    mutating func endGameLook(at now: Double) -> [Action] {
        guard map?.free.isEmpty == true, fatal == nil else { return [] }
        return planConnections(at: now, asking: false)
    }
}
