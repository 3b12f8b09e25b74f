import SlipstreamCore
import Dispatch
import Glibc
import SlipstreamHTTP

extension DownloadJob {
    // MARK: Transfers

    /// Starts a transfer for a connection the machine planned.
    func launch(_ request: DownloadStateMachine.Request) {
        let clients = limiters.map { limiter in
            limiter.register { [weak self] in self?.feed { $0.rateGranted(request.connection, at: $1) } }
        }
        state.withLock { $0.limiterClients[request.connection] = clients }
        var httpRequest = configuration.request(
            request.url, range: .init(start: request.start, end: request.end.map { $0 - 1 }), loginOrigins: loginOrigins,
            limiters: limiters)
        if let validator = request.ifRange { httpRequest.headers.add(name: "If-Range", value: validator) }
        if let existing = request.unlessUnchanged {
            httpRequest.headers.add(name: "If-Modified-Since", value: HTTPDate.text(secondsSince1970: existing.modified))
            if let etag = existing.etag { httpRequest.headers.add(name: "If-None-Match", value: etag) }
        }
        let transfer = engine.start(httpRequest, sink: SegmentSink(job: self, connection: request.connection))
        let early = state.withLock { state in
            state.transfers[request.connection] = transfer
            return state.early.removeValue(forKey: request.connection)
        }
        switch early {
        case .cancel?: transfer.cancel()
        case .resume?: transfer.resume()
        case nil: break
        }
    }

    /// Resumes or cancels a connection's transfer, or does so as soon as it is attached.
    func command(_ command: EarlyCommand, _ connection: Int) {
        let transfer: HTTPTransfer? = state.withLock { state in
            if let transfer = state.transfers[connection] { return transfer }
            // A cancel is never undone by a later resume.
            if state.early[connection] != .cancel { state.early[connection] = command }
            return nil
        }
        switch command {
        case .cancel: transfer?.cancel()
        case .resume: transfer?.resume()
        }
    }

    /// Takes up to `count` permits of the host limit for further connections and tells the
    /// machine how many it got (a refusal leaves a wake-up for the next release).
    func requestPermits(_ count: Int) {
        var granted = 0
        if let permits {
            while granted < count,
                permits.limiter.acquireExtra(
                    permits.host,
                    orWait: { [weak self] in
                        self?.feed { $0.permitFreed(at: $1) }
                    })
            {
                granted += 1
            }
        } else {
            granted = count
        }
        feed { $0.permitsGranted(granted, at: $1) }
    }

    /// Whether every rate limiter lets a slice of `bytes` through now (lock held). When one
    /// does not, what the limiters before it let through is held for the connection's next try.
    func admit(_ bytes: Int, connection: Int, state: inout State) -> Bool {
        guard !limiters.isEmpty, let clients = state.limiterClients[connection] else { return true }
        for (index, limiter) in limiters.enumerated() where !limiter.take(bytes, client: clients[index]) {
            for earlier in 0..<index { limiters[earlier].hold(bytes, client: clients[earlier]) }
            return false
        }
        return true
    }

    // MARK: The sink's callbacks (the engine's I/O thread)

    func receive(head: HTTPResponseHead, on connection: Int) -> HTTPSinkDecision {
        let (verdict, actions) = state.withLock { state in
            let time = now
            switch state.machine.head(head, on: connection, wallClock: Double(Glibc.time(nil))) {
            case .verdict(let verdict, let actions):
                return (verdict, actions)
            case .open(let opening):
                let result: Result<String, DownloadError>
                do throws(DownloadError) {
                    result = .success(try state.files.open(opening, head: head, hooks: writerHooks))
                } catch {
                    result = .failure(error)
                }
                return state.machine.fileOpened(result, for: opening, head: head, on: connection, at: time)
            }
        }
        perform(actions)
        return verdict.decision
    }

    func receive(body: UnsafeRawBufferPointer, on connection: Int) -> HTTPSinkDecision {
        var progress: DownloadProgress?
        // What to do after: a failure's actions, connections moved off a slow mirror.
        var after: [Action] = []
        let decision: HTTPSinkDecision = state.withLock { state in
            guard admit(body.count, connection: connection, state: &state) else {
                state.machine.pause(connection, for: .rateLimit)
                return .pause
            }
            guard case .write(let offset, let count) = state.machine.place(body.count, on: connection) else {
                return .abort(state.machine.stopped)
            }
            let taking: DiskWriter.Taking
            do throws(DownloadError) {
                taking = try state.files.take(UnsafeRawBufferPointer(rebasing: body[..<count]), at: offset)
                guard taking != .refused else {
                    // The disk is behind: the slice comes again once the writer has room.
                    for (limiter, client) in zip(limiters, state.limiterClients[connection] ?? []) {
                        limiter.hold(body.count, client: client)
                    }
                    state.machine.pause(connection, for: state.files.refusal)
                    return .pause
                }
            } catch {
                after = state.machine.fail(error)
                return .abort(HTTPError(.writeFailed, url: url, message: error.message))
            }
            let taken = state.machine.took(count, of: body.count, on: connection, at: now)
            progress = taken.progress
            after = taken.actions
            guard taking == .takenNearlyFull, case .proceed = taken.verdict else { return taken.verdict.decision }
            // The writer is nearly full: this transfer reads no more until it has room.
            state.machine.pause(connection, for: .disk)
            return .proceedThenPause
        }
        if let progress { events.yield(.progress(progress)) }
        perform(after)
        return decision
    }

    func complete(_ result: Result<Void, HTTPError>, on connection: Int) {
        let clients = state.withLock { state in
            state.transfers[connection] = nil
            state.early[connection] = nil
            return state.limiterClients.removeValue(forKey: connection) ?? []
        }
        for (limiter, client) in zip(limiters, clients) { limiter.unregister(client) }
        feed { $0.transferEnded(connection, error: result.failureError, at: $1) }
    }

    // MARK: Files and the end

    /// What the writer tells the job.
    var writerHooks: DiskWriter.Hooks {
        DiskWriter.Hooks(
            onError: { [weak self] error in self?.stop(with: error) },
            onRoom: { [weak self] in self?.feed { $0.diskHasRoom(at: $1) } },
            beforeWrite: configuration.beforeWrite,
            onOpened: { [reading] file in reading.fileOpened(file) },
            onWritten: { [reading] range in reading.written(range) })
    }

    /// Lets the writer finish (on its thread), or, where no answer was taken (a 404, a refused
    /// connection, a cancel), goes on on a Dispatch thread: this may be the network thread, and
    /// finishing removes files and starts a queue's next download.
    func finishWriter(keepRecord: Bool) {
        let (writer, ordered) = state.withLock { ($0.files.writer, $0.files.ordered) }
        let finished: @Sendable (PartFile?) -> Void = { [self] file in
            let kept = state.withLock { state in
                if let file { state.files.file = file }
                return state.files.hasResumeRecords
            }
            feed { $0.writerFinished(keptRecords: kept, at: $1) }
        }
        if let ordered {
            ordered.finish { finished(nil) }
        } else if let writer {
            writer.finish(keepRecord: keepRecord, then: finished)
        } else {
            DispatchQueue.global().async { finished(nil) }
        }
    }

    /// Checks and renames the complete file (on the writer's thread); a stream is complete
    /// once written out.
    func complete(to path: String) {
        let (files, file) = state.withLock { ($0.files, $0.files.file) }
        let result: Result<Void, DownloadError>
        do throws(DownloadError) {
            if let file {
                try files.complete(file, to: path)
            } else if files.ordered == nil {
                throw DownloadError(.disk, "\(path): the file was not opened", path: path)
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        state.withLock { $0.files.file = nil }
        feed { machine, _ in machine.completed(result) }
    }

    /// Tells an event; the last one ends the stream at once (nothing told later comes after it).
    func emit(_ event: DownloadEvent) {
        switch event {
        case .started(let info):
            reading.sized(info.totalBytes)
            events.yield(event)
        case .finished, .failed: events.finish(after: event)
        case .notice(let text): events.yield(.notice(text.redactingLogins))
        default: events.yield(event)
        }
    }

    /// The outcome: everyone waiting for it is woken.
    func finish(_ outcome: Result<DownloadResult, DownloadError>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        reading.ended(outcome.map { _ in () })
        waiters.forEach { $0.resume(returning: outcome) }
    }
}

extension DownloadStateMachine.Verdict {
    /// What the engine does with the transfer.
    var decision: HTTPSinkDecision {
        switch self {
        case .proceed: .proceed
        case .finish: .finish
        case .abort(let error): .abort(error)
        }
    }
}

extension Result {
    var failureError: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
