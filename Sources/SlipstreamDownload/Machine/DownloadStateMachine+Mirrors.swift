import SlipstreamHTTP

extension DownloadStateMachine {
    /// Seconds between looks for mirrors to measure as bytes arrive.
    static let mirrorLookInterval = 0.05
    /// Seconds of a connection's bytes (from its first) that make a mirror's first measure.
    static let firstMeasureAge = 0.1
    /// Seconds a mirror without connections keeps its measure before it is tried again.
    static let mirrorMemory = 10.0

    /// Seconds a mirror's connection may go without its first byte while the other sources
    /// deliver and a connection is free to take its range (`isSilentMirror`).
    static let silentMirrorWait = 2.0

    /// The sources as `MirrorChoice` sees them at `time` (one resting after a failure is not
    /// usable).
    func mirrorSources(at time: Double) -> [MirrorChoice.Source] {
        var sources = mirrors.map { MirrorChoice.Source(speed: $0.speed, connections: 0, usable: !$0.dropped && time >= $0.restingUntil) }
        for connection in connections.values where connection.dropped == nil {
            sources[connection.mirror].connections += 1
        }
        return sources
    }

    /// The source for a new connection at `time`.
    func chooseMirror(at time: Double) -> Int {
        guard mirrors.count > 1 else { return 0 }
        return MirrorChoice.next(mirrorSources(at: time)) ?? reference
    }

    /// Drops mirror `index` (never the `reference` source, which defines the file) and closes
    /// its connections, whose ranges go back to the pool for the other sources.
    mutating func dropMirror(_ index: Int, because reason: String) -> [Action] {
        guard index != reference, !mirrors[index].dropped else { return [] }
        mirrors[index].dropped = true
        var actions: [Action] = [.emit(.notice("mirror \(mirrors[index].url) \(reason); dropped, its ranges go to the other sources"))]
        for number in connections.keys.sorted() where connections[number]?.mirror == index && connections[number]?.dropped == nil {
            connections[number]?.dropped = .mirror
            actions.append(.cancel(connection: number))
        }
        return actions
    }

    /// A mirror's connection failed at `now`. The failure is the mirror's, not the download's:
    /// the mirror is dropped after an answer that retrying cannot change (such as a 404) or
    /// after `maxMirrorFailures` failures in a row; until then it rests for the retry policy's
    /// delay (or its `Retry-After`) before it gets another connection, while the other
    /// sources take its ranges.
    mutating func mirrorFailed(_ index: Int, _ failure: DownloadError, cause: HTTPError?, at now: Double) -> [Action] {
        guard !mirrors[index].dropped else { return [] }
        mirrors[index].failures += 1
        let failures = mirrors[index].failures
        let hopeless = cause.map { !$0.isRetryable } ?? false
        let rest = settings.retryPolicy.delay(attempt: failures, retryAfter: cause?.retryAfter, jitter: 1)
        mirrors[index].restingUntil = max(mirrors[index].restingUntil, now + rest)
        guard hopeless || failures >= Self.maxMirrorFailures else { return [] }
        return dropMirror(index, because: "failed: \(failure.message)" + (hopeless ? "" : " (\(failures) times in a row)"))
    }

    /// The watchdog's look at the mirrors: each one's speed per connection, then connections
    /// closed on mirrors their speed does not earn. A mirror left without connections is
    /// measured again (as one never tried) once its measure is `mirrorMemory` seconds old:
    /// the other mirrors may have slowed down since.
    mutating func rebalanceMirrors(at time: Double) -> [Action] {
        guard mirrors.count > 1 else { return [] }
        let sources = mirrorSources(at: time)
        for index in mirrors.indices {
            var speeds = connections.values.filter { connection in
                connection.mirror == index && connection.dropped == nil && time - connection.started >= Self.tickInterval / 2
            }.compactMap(\.speed)
            // A mirror not measured yet whose connections all ended (a fast one): by theirs.
            if speeds.isEmpty, mirrors[index].speed == nil {
                speeds = recentSpeeds.filter { $0.mirror == index }.map(\.speed)
            }
            if !speeds.isEmpty {
                mirrors[index].speed = speeds.reduce(0, +) / Double(speeds.count)
                mirrors[index].measuredAt = time
            } else if sources[index].connections == 0, mirrors[index].speed != nil,
                time - mirrors[index].measuredAt >= Self.mirrorMemory
            {
                mirrors[index].speed = nil
                nextMirrorLook = 0
            }
        }
        return moveOffSlowMirrors(at: time)
    }

    /// A mirror's first measure, before the watchdog's (`mirrorLookInterval` apart, as bytes
    /// arrive): the speed of its connections from their first slice to their last, once those
    /// are `firstMeasureAge` seconds apart (between slices, not up to now: a connection whose
    /// next slice is on its way would look slower than one whose slice just came), and of
    /// those that ended in the last seconds (a fast mirror's may all have ended before they
    /// were that old). Every connection spent on a slow mirror is one the fast one lacks, so
    /// the sooner it is measured, the sooner they move.
    ///
    /// A connection whose slices are not yet that far apart is measured over its life once it
    /// is twice that old (a slow server's slices may come half a second apart: one that has
    /// sent little for a fifth of a second while another mirror streams is slow), and in the
    /// end game (`overLife`: no work left for a connection that ended) once it is half that
    /// old, since until the slow mirror is measured its connections keep the last pieces while
    /// the fast one's stand idle.
    mutating func lookAtNewMirrors(at time: Double, overLife: Bool = false) -> [Action] {
        guard mirrors.count > 1 else {
            nextMirrorLook = .infinity
            return []
        }
        nextMirrorLook = time + Self.mirrorLookInterval
        var measured = false
        let lifeSpan = overLife ? Self.firstMeasureAge / 2 : 2 * Self.firstMeasureAge
        for index in mirrors.indices where mirrors[index].speed == nil && !mirrors[index].dropped {
            var sum = 0.0
            var count = 0
            for connection in connections.values where connection.mirror == index && connection.dropped == nil {
                guard
                    let speed = connection.sliceSpeed(over: Self.firstMeasureAge)
                        ?? connection.lifeSpeed(at: time, over: lifeSpan)
                else { continue }
                sum += speed
                count += 1
            }
            for ended in recentSpeeds where ended.mirror == index {
                sum += ended.speed
                count += 1
            }
            guard count > 0 else { continue }
            mirrors[index].speed = sum / Double(count)
            mirrors[index].measuredAt = time
            measured = true
        }
        if !mirrors.contains(where: { $0.speed == nil && !$0.dropped }) { nextMirrorLook = .infinity }
        return measured ? moveOffSlowMirrors(at: time) : []
    }

    /// Whether `connection` is a mirror's (not the reference's) that has sent nothing
    /// `silentMirrorWait` seconds after its request, while bytes came from other connections
    /// since it was made and a connection is free to take its range (there is no other work
    /// left for one). A mirror that drops what is sent to it would otherwise hold that range
    /// until the stall timeout, and the end of the download would wait for it.
    func isSilentMirror(_ connection: Connection, at time: Double) -> Bool {
        map != nil && connection.mirror != reference && connection.firstData == nil && connection.pausedFor == nil
            && time - connection.started >= Self.silentMirrorWait && lastByte >= connection.started
            && connections.count < settings.connections
    }

    /// A connection ended with no work left for it while others run: their mirrors are looked
    /// at as the end game does (`lookAtNewMirrors(overLife:)`).
    mutating func endGameMirrorLook(at time: Double) -> [Action] {
        guard mirrors.count > 1, let map, map.free.isEmpty, fatal == nil, !connections.isEmpty,
            connections.count < settings.connections, mirrors.contains(where: { $0.speed == nil && !$0.dropped })
        else { return [] }
        return lookAtNewMirrors(at: time, overLife: true)
    }

    /// Closes connections (as slow, not failed) on mirrors their speed does not earn
    /// (`MirrorChoice.surplus`), so that they reopen on faster ones.
    private mutating func moveOffSlowMirrors(at time: Double) -> [Action] {
        guard map != nil, fatal == nil else { return [] }
        var sources = mirrorSources(at: time)
        var actions: [Action] = []
        while let index = MirrorChoice.surplus(sources) {
            let candidates = connections.filter { $0.value.mirror == index && $0.value.dropped == nil }
            guard let slowest = candidates.min(by: { ($0.value.speed ?? 0, $0.key) < ($1.value.speed ?? 0, $1.key) })
            else { break }
            connections[slowest.key]?.dropped = .slow
            actions.append(.cancel(connection: slowest.key))
            // Where it will reopen, for the next look at the shares.
            sources[index].connections -= 1
            guard let next = MirrorChoice.next(sources), next != index else { break }
            sources[next].connections += 1
        }
        return actions
    }
}
