extension DownloadStateMachine {
    /// One look of the watchdog, every `tickInterval` seconds: tells the progress; measures each
    /// connection's speed; closes one that delivered nothing for the stall timeout (unless a
    /// rate limit or the disk holds it back), a silent mirror's (`isSilentMirror`), and one
    /// that runs below a third of the median speed of the others (including those that ended in
    /// the last few seconds) for two looks in a row, so that its range goes to faster
    /// connections; with nothing free, lets idle connections take stragglers' tails
    /// (`endGameLook`), whose speeds it may just have measured.
    mutating func tick(at now: Double) -> [Action] {
        guard isRunning else { return [] }
        var actions: [Action] = []
        // Progress is also told from here, so the last bytes before a pause are never left
        // untold (data events alone come at most ten times a second, and only with data).
        if now - lastProgressEvent >= Self.tickInterval {
            lastProgressEvent = now
            actions.append(.emit(.progress(progress(at: now))))
        }
        for number in connections.keys.sorted() where connections[number]?.dropped == nil {
            guard let connection = connections[number] else { continue }
            // One that has not sent its first byte has no speed yet: it is judged by its answer
            // (a mirror without the file fails) or the stall timeout, never as slow. On a loaded
            // machine a fast mirror's connections may take longer than a tick to answer: 0 B/s
            // would measure the mirror as stopped and give it no connection again.
            if connection.firstData != nil {
                // A connection younger than a tick is measured over its life so far.
                let measured = Double(connection.recentBytes) / min(Self.tickInterval, max(now - connection.started, 0.05))
                connections[number]?.speed = connection.speed.map { ($0 + measured) / 2 } ?? measured
            }
            connections[number]?.recentBytes = 0
            if connection.pausedFor == nil, now - connection.lastData > settings.stallTimeout {
                connections[number]?.dropped = .stalled
                actions.append(.cancel(connection: number))
            } else if isSilentMirror(connection, at: now) {
                connections[number]?.dropped = .silent
                actions.append(.cancel(connection: number))
            }
        }
        recentSpeeds.removeAll { now - $0.time > 5 }
        actions += rebalanceMirrors(at: now)
        if settings.dropSlowConnections, map != nil, fatal == nil, let slow = slowestStraggler(at: now) {
            connections[slow]?.dropped = .slow
            actions.append(.cancel(connection: slow))
        }
        return actions + endGameLook(at: now)
    }

    /// The connection to drop as a straggler, if any: a quarter second old, with work left,
    /// under a third of the median of at least two other speeds for two looks. None while a
    /// connection waits for the disk: the disk is the bottleneck then, and speeds say nothing
    /// about the network. Connections held back (waiting for a stream's earlier bytes, or a
    /// rate limit) are neither judged nor compared with.
    private mutating func slowestStraggler(at time: Double) -> Int? {
        guard !connections.values.contains(where: { $0.pausedFor == .disk }) else { return nil }
        let judged = connections.filter { _, connection in
            connection.dropped == nil && connection.pausedFor == nil && time - connection.started >= Self.tickInterval / 2
                && connection.speed != nil
        }
        var straggler: (number: Int, speed: Double)?
        for (number, connection) in judged.sorted(by: { $0.key < $1.key }) {
            // Judged against its own source's connections: a slow mirror as a whole is the
            // mirror shares' business (`rebalanceMirrors`).
            let others =
                judged.filter { $0.key != number && $0.value.mirror == connection.mirror }.compactMap(\.value.speed)
                + recentSpeeds.filter { $0.mirror == connection.mirror }.map(\.speed)
            guard others.count >= 2, let speed = connection.speed else { continue }
            let median = others.sorted()[others.count / 2]
            let workLeft = connection.assignment.flatMap { map?.assignment($0)?.remaining } ?? 0
            if speed * 3 < median, workLeft > 0 {
                connections[number]?.slowTicks += 1
                if connections[number]?.slowTicks ?? 0 >= 2, speed < straggler?.speed ?? .infinity {
                    straggler = (number, speed)
                }
            } else {
                connections[number]?.slowTicks = 0
            }
        }
        return straggler?.number
    }
}
