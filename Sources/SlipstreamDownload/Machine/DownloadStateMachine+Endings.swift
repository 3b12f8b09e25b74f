import SlipstreamHTTP

extension DownloadStateMachine {
    /// Connection `number`'s transfer ended at `now`, with `error` unless it delivered all it
    /// was asked (or told to finish): account for its range, then carry on, retry later, or stop.
    mutating func transferEnded(_ number: Int, error: HTTPError?, at now: Double) -> [Action] {
        guard let connection = connections.removeValue(forKey: number) else { return [] }
        if notModified { return settle() }
        // One that ended before the watchdog measured it (a fast one, or a late tick on a busy
        // machine) is measured over its life, if that was long enough to mean something: the
        // stragglers left behind need the fast ones' speeds to be judged against.
        let age = now - connection.started
        // (A stream's short ranges, done in a tenth of a second, are measured between slices;
        // a range done faster than that, over its life: a mirror that serves whole ranges in
        // a few hundredths of a second is a fast one, whatever its slices say.)
        let lifetime =
            age >= Self.tickInterval / 2
            ? Double(connection.recentBytes) / age
            : connection.sliceSpeed(over: 0.05) ?? (error == nil && age > 0 ? Double(connection.recentBytes) / age : nil)
        if let speed = connection.speed ?? lifetime { recentSpeeds.append((now, speed, connection.mirror)) }
        let probing = phase.stage == .probing || phase.stage == .streaming && stream?.written == 0 && error != nil
        if map != nil {
            // Whatever of its range it did not write goes back to a running connection whose
            // request still covers it, else to the pool.
            if let assignment = connection.assignment {
                changeMap { $0.release(assignment) }
                reclaimFreeRuns()
            }
        } else if error == nil, case .streaming(let stream) = phase {
            if let size = stream.size, stream.written != size {
                if fatal == nil {
                    fatal = DownloadError(
                        .network, "\(sourceURL(reference)): the body ended after \(stream.written) of \(size) bytes",
                        url: sourceURL(reference))
                }
            } else {
                changeStream { $0.completed = true }
            }
            return settle()
        }
        guard fatal == nil else { return settle() }
        let actions = handleEnd(of: connection, error: error, probing: probing, at: now)
        return actions + endGameMirrorLook(at: now) + settle()
    }

    /// What follows every transfer's end: permits no connection uses go back, the rest stop
    /// once the download failed, and the download finishes once nothing runs any more.
    private mutating func settle() -> [Action] {
        releaseSparePermits(wakingWaiters: true) + (fatal != nil ? cancelAll() : []) + finishIfIdle()
    }

    private mutating func handleEnd(
        of connection: Connection, error: HTTPError?, probing: Bool,
        at now: Double
    ) -> [Action] {
        let failure = failure(of: connection, error: error, probing: probing)
        if let failure, connection.mirror != reference {
            let cause = connection.dropped == nil ? error : nil
            return mirrorFailed(connection.mirror, failure, cause: cause, at: now) + planConnections(at: now)
        }
        if restartFresh, probing {
            restartFresh = false
            return [launchProbe(at: now)]
        }
        guard var failure else { return planConnections(at: now) }
        if error?.code == .rangeNotHonoured, map != nil {
            rangeLies += 1
            guard rangeLies < Self.maxRangeLies else {
                fatal = DownloadError(
                    .rangeNotHonoured, "\(failure.message); the server does not honour ranges reliably",
                    url: failure.url, underlying: failure.underlying)
                return []
            }
            return planConnections(at: now)
        }
        let cause = connection.dropped == nil ? error : nil
        var retryAfter = error?.retryAfter
        var hopeless = cause.map { !$0.isRetryable } ?? false
        // A first request that failed goes to the next source at once; once every source
        // failed, the error names the download's URL's failure and the mirrors'.
        if probing, mirrors.count > 1, cause?.code != .cancelled {
            switch probeFailed(connection.mirror, failure, cause: cause, at: now) {
            case .next(let actions):
                return actions
            case .roundOver(let wait, let noneLeft):
                (retryAfter, hopeless) = (wait, noneLeft)
                failure = firstProbeFailure ?? failure
                failure.message += mirrorsFailedToo
            }
        }
        if hopeless {
            fatal = failure
            return []
        }
        // A retry already waits: this failure joins it (the connections that were running when
        // it was told fail one by one), and its range waits for the same retry.
        if scheduledRetries > 0, map != nil { return [] }
        // A connection that took new ground before it failed starts a streak of its own.
        failureStreak = connection.progressed ? 1 : failureStreak + 1
        guard failureStreak <= settings.retryPolicy.retries else {
            var gaveUp = failure
            gaveUp.message += " (gave up after \(settings.retryPolicy.retries) retries)"
            fatal = gaveUp
            return []
        }
        if settings.inOrderPieceSize != nil, map == nil, let written = stream?.written, written > 0 {
            var gaveUp = failure
            gaveUp.message += "; the \(written) bytes already written out cannot be taken back, and the server has no ranges to carry on"
            fatal = gaveUp
            return []
        }
        // No ranges (or no answer yet): the first request again, from the start.
        let restart = map == nil ? resetToProbing() : []
        let delay = settings.retryPolicy.delay(
            attempt: failureStreak, retryAfter: retryAfter,
            jitter: Double.random(in: 0...1, using: &random))
        scheduledRetries += 1
        return restart + [.scheduleRetry(after: delay), .emit(.retrying(error: failure, attempt: failureStreak, delay: .seconds(delay)))]
    }

    /// Why a connection ended early, if it did and that counts as a failure.
    private func failure(of connection: Connection, error: HTTPError?, probing: Bool) -> DownloadError? {
        switch (connection.dropped, error) {
        case (.slow?, _), (.mirror?, _), (.yielded?, _):
            return nil  // not a failure: its range simply goes to a faster connection or source
        case (.silent?, _):
            let source = sourceURL(connection.mirror)
            return DownloadError(
                .network, "\(source): nothing came \(Int(Self.silentMirrorWait)) s after the request, while the other sources delivered",
                url: source)
        case (.stalled?, _):
            let source = mirrors[connection.mirror].url
            return DownloadError(
                .network, "\(source): a connection delivered nothing for \(Int64(clamping: settings.stallTimeout)) s",
                url: source)
        case (nil, nil) where connection.assignment != nil || probing:
            let source = sourceURL(connection.mirror)
            return DownloadError(.network, "\(source): a connection ended before its range did", url: source)
        case (nil, let error?) where !(restartFresh && probing):
            return DownloadError(error)
        default:
            return nil
        }
    }

    /// A retry's delay is over: the first request again, or connections for the free ranges.
    mutating func retryDue(at now: Double) -> [Action] {
        scheduledRetries = max(0, scheduledRetries - 1)
        guard fatal == nil else { return finishIfIdle() }
        let launches = phase.stage == .probing && connections.isEmpty ? [launchProbe(at: now)] : planConnections(at: now)
        return launches + finishIfIdle()
    }

    /// Back to the state before the first answer: a stream that failed restarts from zero.
    mutating func resetToProbing() -> [Action] {
        let hadFile = opening != nil
        phase = .probing
        opening = nil
        path = nil
        return hadFile ? [.closeFile] : []
    }

    /// Gives free runs back to running connections whose requests still cover them.
    private mutating func reclaimFreeRuns() {
        let connections = connections
        changeMap { map in
            for connection in connections.values {
                guard let id = connection.assignment else { continue }
                map.extend(id, upTo: connection.requestEnd ?? map.size)
            }
        }
    }
}
