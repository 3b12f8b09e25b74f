extension DownloadQueue {
    // MARK: Changes while the queue runs

    /// Downloads running at once at most, now.
    public var maxConcurrentDownloads: Int {
        state.withLock { $0.scheduler.maxConcurrentDownloads }
    }

    /// Changes how many downloads run at once (at least 1), at once: with more, waiting ones
    /// start now; with fewer, the running ones carry on to their end, and nothing new starts
    /// until fewer than `count` run (as aria2's `max-concurrent-downloads`).
    public func setMaxConcurrentDownloads(_ count: Int) {
        state.withLock { $0.scheduler.maxConcurrentDownloads = max(count, 1) }
        changed()
    }

    /// The limit of all the downloads together now, in bytes per second; nil for none.
    public var bytesPerSecondLimit: Int64? { rateLimiter.bytesPerSecond }

    /// Changes the limit of all the downloads together (`Configuration.bytesPerSecondLimit`)
    /// at once: running transfers follow within a fraction of a second. Nil lifts it.
    public func setBytesPerSecondLimit(_ bytesPerSecond: Int64?) {
        rateLimiter.setBytesPerSecond(bytesPerSecond)
    }

    /// Changes the limit of one download (its `Request.bytesPerSecondLimit`), at once when it
    /// runs, and for its later runs (after a pause). Nil goes back to the queue's setting for
    /// each download (`configuration.download.bytesPerSecondLimit`). Nothing happens for a
    /// download the queue does not have.
    public func setBytesPerSecondLimit(_ bytesPerSecond: Int64?, of id: ID) {
        let download: Download? = state.withLock { state in
            guard state.records[id] != nil else { return nil }
            state.records[id]?.request.bytesPerSecondLimit = bytesPerSecond
            state.records[id]?.pendingRequest?.bytesPerSecondLimit = bytesPerSecond
            return state.records[id]?.download
        }
        download?.setBytesPerSecondLimit(bytesPerSecond ?? configuration.download.bytesPerSecondLimit)
    }

    /// Changes what a download downloads: its URLs, mirrors, destination, checksum or
    /// settings, as `change` makes its `Request`. A waiting one (queued or paused) starts with
    /// them when its turn comes. A running one is refused, unless `restarting`: then, as aria2
    /// does for a changed option of an active download, its transfers stop (its `.part` file
    /// kept) and it waits again in its place with the new request (a `.queued` event; it
    /// starts again at once when its slot is free, resuming what it has when its file is the
    /// same); one being paused takes the new request once paused. A new destination leaves
    /// the `.part` file of an earlier run where it is (the download starts afresh).
    ///
    /// Throws `.unknownDownload` for a download the queue does not have; `.running` for a
    /// running one without `restarting` (its limit has `setBytesPerSecondLimit(_:of:)`);
    /// `.invalidURL` and `.output` as `add` does. Nothing changes when it throws.
    public func update(_ id: ID, restarting: Bool = false, _ change: (inout Request) -> Void) throws(DownloadError) {
        var stopping: Download?
        while true {
            // `change` runs without the lock (it may look at the queue): the request is changed
            // only if nothing else changed it meanwhile, else read again.
            let read: Result<Request, DownloadError> = state.withLock { state in
                guard let record = state.records[id], let phase = state.scheduler.phase(of: id) else {
                    return .failure(DownloadError(.unknownDownload, "the queue has no download \(id)"))
                }
                guard restarting || !phase.isActive else { return .failure(Self.runningError(id, record.request)) }
                return .success(record.pendingRequest ?? record.request)
            }
            let old = try read.get()
            var new = old
            change(&new)
            for url in [new.url] + new.mirrors {
                if let refusal = HTTPURL.refusal(of: url) {
                    throw DownloadError(.invalidURL, "\(url): \(refusal)", url: url)
                }
            }
            let outcome: Result<Bool, DownloadError> = state.withLock { state in
                guard let record = state.records[id], let phase = state.scheduler.phase(of: id) else {
                    return .failure(DownloadError(.unknownDownload, "the queue has no download \(id)"))
                }
                guard restarting || !phase.isActive else { return .failure(Self.runningError(id, record.request)) }
                guard (record.pendingRequest ?? record.request) == old else { return .success(false) }
                if new.url != old.url || new.destination != old.destination {
                    state.targets.release(id)
                    if let owner = state.targets.owner(of: new) {
                        state.targets.claim(old, for: id)
                        if let path = record.path { state.targets.claim(path: path, for: id) }
                        return .failure(Self.duplicateError(new, owner: owner))
                    }
                    state.targets.claim(new, for: id)
                    state.records[id]?.path = nil
                }
                guard !phase.isActive else {
                    // Taken once its transfers have stopped (see `ended`).
                    state.records[id]?.pendingRequest = new
                    if phase == .running {
                        state.scheduler.set(id, to: .pausing)
                        state.records[id]?.stop = .restart
                        stopping = record.download
                    }
                    return .success(true)
                }
                let host = HostConnectionLimiter.host(of: new.url)
                state.records[id]?.host = host
                state.scheduler.setHost(id, to: host)
                state.records[id]?.request = new
                return .success(true)
            }
            if try outcome.get() { break }
        }
        // (One still starting is stopped by `start`, which finds its stop intent.)
        stopping?.cancel()
        changed()
    }

    /// The refusal of a change to running download `id`.
    private static func runningError(_ id: ID, _ request: Request) -> DownloadError {
        DownloadError(
            .running,
            "download \(id) of \(request.url) is running: it can be changed only while it waits or is paused, or restarted",
            url: request.url)
    }

    // MARK: Positions

    /// The place of a download in the queue's order (0: first), running ones included; nil
    /// for one the queue does not have.
    public func position(of id: ID) -> Int? {
        state.withLock { $0.scheduler.items.firstIndex { $0.id == id } }
    }

    /// The place of a waiting download (queued or paused) among the waiting ones (0: the next
    /// to start), as aria2's `tellWaiting` and `changePosition` count; nil for one that runs,
    /// or that the queue does not have.
    public func waitingPosition(of id: ID) -> Int? {
        state.withLock { $0.scheduler.waitingPosition(of: id) }
    }

    /// The number of waiting downloads (queued or paused).
    public var waitingCount: Int {
        state.withLock { $0.scheduler.waitingCount }
    }

    /// Moves a waiting download to `position` among the waiting ones (clamped to the ends: 0
    /// is next to start), as aria2's `changePosition` (for `POS_CUR` and `POS_END`, add the
    /// offset to `waitingPosition(of:)` or `waitingCount - 1`). Running downloads keep their
    /// places. Returns the position it got; nil (nothing moves) for a running download or one
    /// the queue does not have.
    @discardableResult
    public func move(_ id: ID, toWaitingPosition position: Int) -> Int? {
        let moved = state.withLock { $0.scheduler.move(id, toWaitingPosition: position) }
        if moved != nil { changed() }
        return moved
    }
}
