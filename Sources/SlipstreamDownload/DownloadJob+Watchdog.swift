import SlipstreamHTTP

extension DownloadJob {
    /// One look of the watchdog, which `WatchdogTicker` takes every `tickInterval` seconds: tells
    /// the progress; measures each connection's speed; closes one that delivered nothing for the
    /// stall timeout, and one that runs below a third of the median speed of the others
    /// (including those that ended in the last few seconds) for two looks in a row, so that its
    /// range goes to faster connections. False once the download has ended.
    func tick() -> Bool {
        var toCancel: [HTTPTransfer] = []
        var progressEvent: DownloadProgress?
        let running: Bool = state.withLock { state in
            guard state.outcome == nil, !state.finishing else { return false }
            let time = now
            // Progress is also told from here, so the last bytes before a pause are never left
            // untold (data events alone come at most ten times a second, and only with data).
            if time - state.lastProgressEvent >= Self.tickInterval {
                state.lastProgressEvent = time
                progressEvent = Self.snapshot(&state, at: time)
            }
            for (number, connection) in state.connections where connection.transfer != nil && connection.dropped == nil {
                // A connection younger than a tick is measured over its life so far.
                let measured = Double(connection.recentBytes) / min(Self.tickInterval, max(time - connection.started, 0.05))
                state.connections[number]?.speed = connection.speed.map { ($0 + measured) / 2 } ?? measured
                state.connections[number]?.recentBytes = 0
                if !connection.throttled, time - connection.lastData > configuration.stallTimeout {
                    state.connections[number]?.dropped = .stalled
                    toCancel.append(connection.transfer!)
                }
            }
            state.recentSpeeds.removeAll { time - $0.time > 5 }
            toCancel += rebalanceMirrors(state: &state, at: time)
            guard configuration.dropSlowConnections, state.map != nil, state.fatal == nil,
                  let slow = slowestStraggler(state: &state, at: time)
            else { return true }
            state.connections[slow]?.dropped = .slow
            toCancel.append(state.connections[slow]!.transfer!)
            return true
        }
        if let progressEvent { events.yield(.progress(progressEvent)) }
        toCancel.forEach { $0.cancel() }
        return running
    }

    /// The connection to drop as a straggler, if any (lock held): at least a second old,
    /// with work left, under a third of the median of at least two other speeds for two looks.
    private func slowestStraggler(state: inout State, at time: Double) -> Int? {
        let judged = state.connections.filter { _, connection in
            connection.dropped == nil && connection.transfer != nil && time - connection.started >= 1
                && connection.speed != nil
        }
        var straggler: (number: Int, speed: Double)?
        for (number, connection) in judged {
            // Judged against its own source's connections: a slow mirror as a whole is the
            // mirror shares' business (`rebalanceMirrors`).
            let others = judged.filter { $0.key != number && $0.value.mirror == connection.mirror }.compactMap(\.value.speed)
                + state.recentSpeeds.filter { $0.mirror == connection.mirror }.map(\.speed)
            guard others.count >= 2, let speed = connection.speed else { continue }
            let median = others.sorted()[others.count / 2]
            let workLeft = connection.assignment.flatMap { state.map?.assignment($0)?.remaining } ?? 0
            if speed * 3 < median, workLeft > 0 {
                state.connections[number]?.slowTicks += 1
                if state.connections[number]!.slowTicks >= 2, speed < straggler?.speed ?? .infinity {
                    straggler = (number, speed)
                }
            } else {
                state.connections[number]?.slowTicks = 0
            }
        }
        return straggler?.number
    }
}
