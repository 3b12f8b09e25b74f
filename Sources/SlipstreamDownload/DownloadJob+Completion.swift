import Dispatch
import Glibc
import SlipstreamHTTP

extension DownloadJob {
    /// A transfer ended (I/O thread): account for its range, then carry on, retry later, or stop.
    func complete(_ result: Result<Void, HTTPError>, on sink: SegmentSink) {
        var plans: [Plan] = []
        var retry: (error: DownloadError, attempt: Int, delay: Double)?
        var probeAgain = false
        var toCancel: [HTTPTransfer] = []
        var drop: MirrorDrop?
        state.withLock { state in
            guard let connection = state.connections.removeValue(forKey: sink.connection) else { return }
            unregisterFromLimiters(connection)
            // One that ended before the watchdog measured it (a fast one, or a late tick on a busy
            // machine) is measured over its life, if that was long enough to mean something: the
            // stragglers left behind need the fast ones' speeds to be judged against.
            let age = now - connection.started
            let lifetime = age >= Self.tickInterval / 2 ? Double(connection.recentBytes) / age : nil
            if let speed = connection.speed ?? lifetime { state.recentSpeeds.append((now, speed, connection.mirror)) }
            let error = result.failureError
            let probing = state.map == nil && (state.stream == nil || state.stream!.written == 0 && error != nil)

            if state.map != nil {
                // Whatever of its range it did not write goes back to a running connection whose
                // request still covers it, else to the pool.
                if let assignment = connection.assignment {
                    state.map!.release(assignment)
                    Self.reclaimFreeRuns(&state.map!, connections: state.connections)
                }
            } else if case .success = result, state.stream != nil {
                if let size = state.stream!.size, state.stream!.written != size {
                    state.fatal = state.fatal ?? DownloadError(.network,
                        "\(url): the body ended after \(state.stream!.written) of \(size) bytes")
                } else {
                    state.stream!.completed = true
                }
                return
            }
            guard state.fatal == nil else { return }

            // Why it ended early, if it did.
            let failure: DownloadError?
            switch (connection.dropped, error) {
            case (.slow?, _), (.mirror?, _):
                failure = nil  // not a failure: its range simply goes to a faster connection or source
            case (.stalled?, _):
                failure = DownloadError(.network, "\(state.mirrors[connection.mirror].url): a connection delivered nothing for "
                    + "\(Int(configuration.stallTimeout)) s")
            case (nil, nil) where connection.assignment != nil || probing:
                failure = DownloadError(.network, "\(url): a connection ended before its range did")
            case (nil, let error?) where !(state.restartFresh && probing):
                failure = DownloadError(error)
            default:
                failure = nil
            }

            if let failure, connection.mirror != 0 {
                drop = mirrorFailed(connection.mirror, failure, cause: connection.dropped == nil ? error : nil, state: &state)
                plans = planConnections(state: &state)
                return
            }
            if state.restartFresh, probing {
                state.restartFresh = false
                probeAgain = true
                return
            }
            if let failure {
                if error?.code == .rangeNotHonoured, state.map != nil {
                    state.rangeLies += 1
                    guard state.rangeLies < Self.maxRangeLies else {
                        state.fatal = DownloadError(.http, "\(failure.message); the server does not honour ranges "
                            + "reliably, try one connection (-n 1)", http: failure.http)
                        return
                    }
                } else if let error, connection.dropped == nil, !error.isRetryable {
                    state.fatal = failure
                    return
                } else {
                    state.failureStreak += 1
                }
                state.lastError = failure
                guard state.failureStreak <= configuration.retries else {
                    state.fatal = DownloadError(failure.code, "\(failure.message) (gave up after "
                        + "\(configuration.retries) retries; run the same command again to \(state.resumable ? "resume" : "start over"))",
                        http: failure.http)
                    return
                }
                if state.map == nil {
                    // No ranges (or no answer yet): the first request again, from the start.
                    resetToProbing(&state)
                    let delay = scheduleRetry(state: &state, retryAfter: error?.retryAfter) { [self] in launchProbe() }
                    retry = (failure, state.failureStreak, delay)
                } else if error?.code != .rangeNotHonoured {
                    let delay = scheduleRetry(state: &state, retryAfter: error?.retryAfter) { [self] in
                        let plans = self.state.withLock { planConnections(state: &$0) }
                        launch(plans)
                    }
                    retry = (failure, state.failureStreak, delay)
                    return
                }
            }
            plans = planConnections(state: &state)
        }
        if let retry { events.yield(.retrying(error: retry.error, attempt: retry.attempt, delay: retry.delay)) }
        if let drop { apply(drop) }
        state.withLock { state in
            releaseSparePermits(state: &state)
            if state.fatal != nil { toCancel = state.connections.values.compactMap(\.transfer) }
        }
        toCancel.forEach { $0.cancel() }
        if probeAgain { launchProbe() }
        launch(plans)
        finishIfIdle()
    }

    /// Back to the state before the first answer: a stream that failed restarts from zero.
    private func resetToProbing(_ state: inout State) {
        // The file is closed only after the writer's last queued write.
        if let writer = state.writer, let file = state.file {
            writer.finish(keepRecord: false) { file.close() }
        }
        state.writer = nil
        state.file = nil
        state.stream = nil
    }

    /// Gives free runs back to running connections whose requests still cover them.
    private static func reclaimFreeRuns(_ map: inout PieceMap, connections: [Int: Connection]) {
        for connection in connections.values {
            guard let id = connection.assignment else { continue }
            map.extend(id, upTo: connection.requestEnd ?? map.size)
        }
    }

    /// Finishes once nothing runs or waits any more and the download is complete or stopped:
    /// after the writer's last write, on its thread.
    func finishIfIdle() {
        let writer: DiskWriter?? = state.withLock { state in
            let complete = state.map?.isComplete ?? state.stream?.completed ?? false
            guard !state.finishing, state.connections.isEmpty, state.scheduledRetries == 0,
                  state.fatal != nil || complete
            else { return .none }
            state.finishing = true
            return .some(state.writer)
        }
        guard let writer else { return }
        if let writer {
            let keep = state.withLock { $0.fatal != nil && !$0.removeFilesAtEnd }
            writer.finish(keepRecord: keep) { self.finish() }
        } else {
            // No answer was taken (a 404, a refused connection, a cancel): this may be the
            // network thread, and finishing removes files and starts a queue's next download.
            DispatchQueue.global().async { self.finish() }
        }
    }

    /// Checks the finished file against the expected checksum, if one was given. On a mismatch
    /// the resume records go (resuming could only give the same bytes again); the file stays.
    private func verify(_ file: PartFile) throws(DownloadError) {
        guard let expected = configuration.checksum else { return }
        let actual = try Checksum.digest(of: file.readablePath, algorithm: expected.algorithm)
        guard actual == expected.digest else {
            try file.name()
            ResumeStore(partPath: file.path).remove()
            throw DownloadError(.checksum, "\(file.path): the \(expected.algorithm.rawValue) checksum is "
                + "\(Checksum.hex(actual)), not \(Checksum.hex(expected.digest)) as expected; the file stays \(file.path)")
        }
    }

    /// Called once, when nothing runs any more and every taken byte is written.
    private func finish() {
        let (file, finalPath, fatal, removeFiles, received, resumed, segmented, size, records, resumable, resumePart) = state.withLock { state in
            discardPrecreatedFile(&state)
            return (state.file, state.finalPath, state.fatal, state.removeFilesAtEnd, state.bytesReceived,
                    state.resumedBytes, state.map != nil, state.map?.size ?? state.stream?.written ?? 0,
                    state.recordsOnDisk || state.writer?.hasWrittenRecords == true, state.resumable,
                    state.resume?.store.partPath)
        }
        var outcome: Result<DownloadResult, DownloadError>
        if var fatal {
            if fatal.code == .noSpace, let file {
                let missing = progress().totalBytes.map { $0 - progress().completedBytes }
                fatal.message += "; \(missing.map { "\($0) bytes" } ?? "the rest") still to fetch: free some space "
                    + (resumable ? "and run it again to resume from \(file.path)" : "and run it again")
            }
            outcome = .failure(fatal)
        } else if let file, let finalPath {
            do throws(DownloadError) {
                try verify(file)
                // The live record and the spare go first, the durable record (enough to resume
                // the whole `.part` if the process dies here) after the rename, so that a file
                // that appears has at most that one record beside it for that one step. (A small
                // file often ends before its first record: nothing to remove then.)
                let store = records ? ResumeStore(partPath: file.path) : nil
                store?.removeAllButDurable()
                try file.rename(to: finalPath, overwrite: configuration.overwrite)
                store?.remove()
                outcome = .success(DownloadResult(path: finalPath, bytes: size, segmented: segmented,
                                                  bytesReceived: received, resumedBytes: resumed))
            } catch {
                outcome = .failure(error)
            }
        } else {
            outcome = .failure(DownloadError(.http, "\(url): no usable response"))
        }
        // (Closed only now: an unnamed file is gone once closed.)
        file?.close()
        // Cancelled and removed: the file written (unless it never had a name), or the one a
        // resume had not reopened yet.
        if case .failure = outcome, removeFiles, let partPath = file.map({ $0.isNamed ? $0.path : nil }) ?? resumePart {
            unlink(partPath)
            ResumeStore(partPath: partPath).remove()
        }
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        switch outcome {
        case .success(let result): events.finish(after: .finished(result))
        case .failure(let error): events.finish(after: .failed(error))
        }
        waiters.forEach { $0.resume(returning: outcome) }
    }
}
