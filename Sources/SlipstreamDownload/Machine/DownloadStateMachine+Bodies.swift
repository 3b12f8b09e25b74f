import SlipstreamHTTP

extension DownloadStateMachine {
    /// Where bytes that just arrived go.
    enum Placement: Sendable, Equatable {
        /// Write `count` of them at `offset` (fewer than arrived when the assignment ends sooner).
        case write(offset: Int64, count: Int)
        /// Take none: the connection is stopped, or has nothing left to write.
        case abort
    }

    /// What follows bytes taken.
    struct Taken: Sendable {
        var verdict: Verdict
        /// A progress snapshot to tell (at most ten a second).
        var progress: DownloadProgress?
        /// What else to do (connections moved off a slow mirror just measured).
        var actions: [Action] = []
    }

    /// Where `count` bytes that just arrived on connection `number` go: the stream's end, or
    /// the assignment's next byte (never past the assignment's end, which another connection
    /// may have taken). Nothing changes until `took` says they were taken. (The hot path: no
    /// allocation.)
    func place(_ count: Int, on number: Int) -> Placement {
        guard fatal == nil, let connection = connections[number], connection.dropped == nil else { return .abort }
        if let stream { return .write(offset: stream.written, count: count) }
        guard let id = connection.assignment, let current = map?.assignment(id) else { return .abort }
        return .write(offset: current.next, count: Int(min(Int64(count), current.remaining)))
    }

    /// `count` bytes of a slice of `sliceCount`, placed by `place`, were taken for writing at
    /// `now`: the stream or the piece map moves on. A request that ends where its assignment
    /// ends completes by itself and keeps its connection for the next request; one whose tail
    /// was taken by another connection stops here.
    mutating func took(_ count: Int, of sliceCount: Int, on number: Int, at now: Double) -> Taken {
        guard var connection = connections[number] else { return Taken(verdict: .abort(stopped)) }
        bytesReceived += Int64(count)
        meter.add(Int64(count), at: now)
        connection.recentBytes += Int64(count)
        connection.received += Int64(count)
        if connection.firstData == nil {
            connection.firstData = now
        } else {
            connection.bytesAfterFirst += Int64(count)
            connection.longestPause = max(connection.longestPause, now - connection.lastData)
        }
        connection.lastData = now
        lastByte = now
        if mirrors[connection.mirror].failures > 0 { mirrors[connection.mirror].failures = 0 }
        var verdict = Verdict.proceed
        if let written = changeStream({ stream in
            stream.written += Int64(count)
            return stream.written
        }) {
            // A body of no announced size that passes the limit: stopped, and what it wrote goes.
            if let limit = settings.maxFileSize, written > limit {
                connections[number] = connection
                removeFilesAtEnd = true
                let error = tooLarge(size: nil)
                return Taken(verdict: .abort(HTTPError(.cancelled, url: settings.url, message: error.message)))
            }
            // A stream restarts from zero after a failure: only new ground ends a failure streak.
            if written > longestStream {
                longestStream = written
                failureStreak = 0
                connection.progressed = true
            }
        } else if let id = connection.assignment,
            let (end, size, isDone) = changeMap({ map in
                guard let end = map.assignment(id)?.end else {
                    preconditionFailure("connection \(number) took bytes for assignment \(id), which the piece map does not hold")
                }
                return (end, map.size, map.commit(id, count: Int64(count)))
            })
        {
            failureStreak = 0
            connection.progressed = true
            if isDone {
                connection.assignment = nil
                let natural = (connection.requestEnd ?? size) == end && count == sliceCount
                verdict = natural ? .proceed : .finish
            }
        }
        connections[number] = connection
        let actions = now >= nextMirrorLook ? lookAtNewMirrors(at: now) : []
        guard now - lastProgressEvent >= 0.1 else { return Taken(verdict: verdict, actions: actions) }
        lastProgressEvent = now
        return Taken(verdict: verdict, progress: progress(at: now), actions: actions)
    }

    /// The error a transfer is stopped with when the download no longer wants its bytes.
    var stopped: HTTPError {
        HTTPError(.cancelled, url: settings.url, message: fatal?.message ?? "stopped")
    }

    /// Connection `number`'s transfer paused, its slice not taken: a rate limiter or the disk
    /// holds it back (not a stall).
    mutating func pause(_ number: Int, for reason: PauseReason) {
        connections[number]?.pausedFor = reason
    }

    /// A rate limiter lets connection `number` take its slice now: its transfer delivers again.
    /// The wait was no stall: the stall clock restarts.
    mutating func rateGranted(_ number: Int, at now: Double) -> [Action] {
        guard connections[number]?.pausedFor == .rateLimit else { return [] }
        connections[number]?.pausedFor = nil
        connections[number]?.lastData = now
        return [.resume(connection: number)]
    }

    /// The writer has room again: every connection waiting for it delivers again.
    mutating func diskHasRoom(at now: Double) -> [Action] {
        var actions: [Action] = []
        for number in connections.keys.sorted() where [.disk, .order].contains(connections[number]?.pausedFor) {
            connections[number]?.pausedFor = nil
            connections[number]?.lastData = now
            actions.append(.resume(connection: number))
        }
        return actions
    }
}
