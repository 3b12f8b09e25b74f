import SlipstreamHTTP

extension DownloadJob {
    /// A mirror just dropped: what to tell, and the transfers to stop once the lock is released.
    struct MirrorDrop {
        var notice: String
        var transfers: [HTTPTransfer]
    }

    /// Failures in a row (no byte in between) after which a mirror is dropped.
    static let maxMirrorFailures = 3

    /// The sources as `MirrorChoice` sees them (lock held).
    func mirrorSources(_ state: State) -> [MirrorChoice.Source] {
        var sources = state.mirrors.map { MirrorChoice.Source(speed: $0.speed, connections: 0, usable: !$0.dropped) }
        for connection in state.connections.values where connection.dropped == nil {
            sources[connection.mirror].connections += 1
        }
        return sources
    }

    /// The source for a new connection (lock held).
    func chooseMirror(state: State) -> Int {
        guard state.mirrors.count > 1 else { return 0 }
        return MirrorChoice.next(mirrorSources(state)) ?? 0
    }

    /// Drops mirror `index` (never the first source, which defines the file) and closes its
    /// connections, whose ranges go back to the pool for the other sources (lock held).
    func dropMirror(_ index: Int, because reason: String, state: inout State) -> MirrorDrop? {
        guard index != 0, !state.mirrors[index].dropped else { return nil }
        state.mirrors[index].dropped = true
        var transfers: [HTTPTransfer] = []
        for (number, connection) in state.connections where connection.mirror == index && connection.dropped == nil {
            state.connections[number]?.dropped = .mirror
            if let transfer = connection.transfer { transfers.append(transfer) }
        }
        return MirrorDrop(notice: "mirror \(state.mirrors[index].url) \(reason); dropped, its ranges go to the other sources",
                          transfers: transfers)
    }

    /// Tells of a dropped mirror and stops its transfers (lock not held).
    func apply(_ drop: MirrorDrop) {
        events.yield(.notice(drop.notice))
        drop.transfers.forEach { $0.cancel() }
    }

    /// A mirror's connection failed (lock held). The failure is the mirror's, not the
    /// download's: the mirror is dropped after an answer that retrying cannot change (such as a
    /// 404) or after `maxMirrorFailures` failures in a row.
    func mirrorFailed(_ index: Int, _ failure: DownloadError, cause: HTTPError?, state: inout State) -> MirrorDrop? {
        guard !state.mirrors[index].dropped else { return nil }
        state.mirrors[index].failures += 1
        let failures = state.mirrors[index].failures
        let hopeless = cause.map { !$0.isRetryable } ?? false
        guard hopeless || failures >= Self.maxMirrorFailures else { return nil }
        return dropMirror(index, because: "failed: \(failure.message)" + (hopeless ? "" : " (\(failures) times in a row)"),
                          state: &state)
    }

    /// The watchdog's look at the mirrors (lock held): each one's speed per connection, then
    /// connections closed (as slow, not failed) on mirrors holding more than their speed earns,
    /// so that they reopen on faster ones. Returns the transfers to cancel.
    func rebalanceMirrors(state: inout State, at time: Double) -> [HTTPTransfer] {
        guard state.mirrors.count > 1 else { return [] }
        for index in state.mirrors.indices {
            let speeds = state.connections.values.filter { connection in
                connection.mirror == index && connection.dropped == nil && connection.transfer != nil
                    && time - connection.started >= Self.tickInterval / 2
            }.compactMap(\.speed)
            if !speeds.isEmpty { state.mirrors[index].speed = speeds.reduce(0, +) / Double(speeds.count) }
        }
        guard state.map != nil, state.fatal == nil else { return [] }
        var sources = mirrorSources(state)
        var toCancel: [HTTPTransfer] = []
        while let index = MirrorChoice.surplus(sources) {
            let candidates = state.connections.filter { $0.value.mirror == index && $0.value.dropped == nil && $0.value.transfer != nil }
            guard let slowest = candidates.min(by: { ($0.value.speed ?? 0) < ($1.value.speed ?? 0) }) else { break }
            state.connections[slowest.key]?.dropped = .slow
            toCancel.append(slowest.value.transfer!)
            // Where it will reopen, for the next look at the shares.
            sources[index].connections -= 1
            guard let next = MirrorChoice.next(sources), next != index else { break }
            sources[next].connections += 1
        }
        return toCancel
    }
}
