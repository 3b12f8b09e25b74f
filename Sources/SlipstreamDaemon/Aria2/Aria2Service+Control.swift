extension Aria2Service {
    /// `remove(gid)` / `forceRemove(gid)`: stops a download and takes it out of the queue,
    /// keeping its `.part` file (as aria2 keeps its files); its status becomes "removed".
    func remove(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try waiting(gid)
        let active = queue.status(of: id)?.phase == .running
        book.withLock { book in
            book.entries[id]?.removed = true
            book.entries[id]?.removedWhileActive = active
        }
        queue.cancel(id)
        return .string(gid.description)
    }

    /// `pause(gid)` / `forcePause(gid)`.
    func pause(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try waiting(gid)
        guard let phase = queue.status(of: id)?.phase, phase != .paused else {
            throw .failed("GID \(gid) cannot be paused now")
        }
        queue.pause(id)
        book.withLock { $0.entries[id]?.pauseAsked = true }
        actions.notify(Aria2Notification.pause.text(gid))
        return .string(gid.description)
    }

    /// `unpause(gid)`.
    func unpause(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try waiting(gid)
        let asked = book.withLock { book in
            defer { book.entries[id]?.pauseAsked = false }
            return book.entries[id]?.pauseAsked ?? false
        }
        guard queue.status(of: id)?.phase == .paused || asked else {
            throw .failed("GID \(gid) cannot be unpaused now")
        }
        queue.resume(id)
        return .string(gid.description)
    }

    /// `pauseAll()` / `forcePauseAll()`.
    func pauseAll() -> JSONValue {
        let entries = book.withLock { $0.entries }
        for status in queue.downloads(in: [.queued, .running]) {
            queue.pause(status.id)
            book.withLock { $0.entries[status.id]?.pauseAsked = true }
            if let gid = entries[status.id]?.gid { actions.notify(Aria2Notification.pause.text(gid)) }
        }
        return "OK"
    }

    /// `unpauseAll()`.
    func unpauseAll() -> JSONValue {
        for status in queue.downloads(in: [.paused]) { queue.resume(status.id) }
        return "OK"
    }

    /// `changePosition(gid, pos, how)`: moves a waiting download to `pos` from the start
    /// (`POS_SET`), from where it is (`POS_CUR`) or from the end (`POS_END`); returns where it
    /// went.
    func changePosition(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try waiting(gid)
        let offset = try params.integer(1)
        let target: Int
        switch try params.string(2) {
        case "POS_SET": target = offset
        case "POS_CUR":
            guard let current = queue.waitingPosition(of: id) else { throw .failed("GID \(gid) is not waiting") }
            target = current + offset
        case "POS_END": target = queue.waitingCount - 1 + offset
        case let how: throw .failed("\(how) is not POS_SET, POS_CUR or POS_END")
        }
        guard let position = queue.move(id, toWaitingPosition: max(0, target)) else { throw .failed("GID \(gid) is not waiting") }
        return .number(Double(position))
    }

    /// `changeUri(gid, fileIndex, delUris, addUris[, position])`: removes and adds URIs of a
    /// download (a running one is paused for the change and goes on from its `.part` file);
    /// returns `[deleted, added]`.
    func changeUri(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try waiting(gid)
        guard try params.integer(1) == 1 else { throw .failed("the file index must be 1: a download here has one file") }
        let deleting = try params.strings(2)
        let adding = try params.strings(3)
        let position = params.count > 4 ? try params.integer(4) : nil
        var counts = (deleted: 0, added: 0)
        try change(id, gid) { request throws(RPCFailure.Kind) in
            var uris = [request.url] + request.mirrors
            for uri in deleting {
                if let index = uris.firstIndex(of: uri) {
                    uris.remove(at: index)
                    counts.deleted += 1
                }
            }
            let at = min(max(position ?? uris.count, 0), uris.count)
            uris.insert(contentsOf: adding, at: at)
            counts.added = adding.count
            guard let first = uris.first else { throw .failed("a download needs at least one URI") }
            request.url = first
            request.mirrors = Array(uris.dropFirst())
        }
        return .array([.number(Double(counts.deleted)), .number(Double(counts.added))])
    }

    /// Changes the request of a download that has not ended: at once when it waits; a running
    /// one stops (keeping its `.part` file), takes the change and starts again in its place
    /// (as aria2 restarts a download whose URIs or options change).
    func change(
        _ id: DownloadQueue.ID, _ gid: GID, _ body: (inout DownloadQueue.Request) throws(RPCFailure.Kind) -> Void
    ) throws(RPCFailure.Kind) {
        guard var request = queue.status(of: id)?.request else {
            throw .failed("GID \(gid) is not found among active or waiting downloads")
        }
        try body(&request)
        do {
            try queue.update(id, restarting: true) { [request] in $0 = request }
        } catch {
            throw .failed(error.message)
        }
    }

    /// `purgeDownloadResult()`: forgets every ended download.
    func purgeDownloadResult() -> JSONValue {
        let removed = queue.removeOutcomes()
        book.withLock { book in
            for outcome in removed {
                if let entry = book.entries.removeValue(forKey: outcome.id) { book.ids[entry.gid] = nil }
            }
        }
        return "OK"
    }

    /// `removeDownloadResult(gid)`: forgets one ended download.
    func removeDownloadResult(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try id(of: gid)
        guard queue.removeOutcome(of: id) != nil else { throw .failed("Could not remove download result of GID#\(gid)") }
        book.withLock { book in
            book.entries[id] = nil
            book.ids[gid] = nil
        }
        return "OK"
    }

    /// The ID of a download that has not ended, or aria2's failure.
    private func waiting(_ gid: GID) throws(RPCFailure.Kind) -> DownloadQueue.ID {
        let id = try id(of: gid)
        guard queue.status(of: id) != nil else {
            throw .failed("Active Download not found for GID#\(gid)")
        }
        return id
    }
}
