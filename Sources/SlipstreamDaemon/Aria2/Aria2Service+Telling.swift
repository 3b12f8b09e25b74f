extension Aria2Service {
    /// The queue's ID of `gid`, or aria2's failure for a GID it does not know.
    func id(of gid: GID) throws(RPCFailure.Kind) -> DownloadQueue.ID {
        guard let id = book.withLock({ $0.ids[gid] }) else { throw .failed("GID \(gid) is not found") }
        return id
    }

    /// The GID named by the parameter at `index`: whole, or a prefix that one GID alone has
    /// (as aria2 finds `tellStatus("2089b0")`).
    func gid(_ params: Aria2Params, _ index: Int) throws(RPCFailure.Kind) -> GID {
        let text = try params.gidText(index)
        if let gid = GID(text), book.withLock({ $0.ids[gid] != nil }) { return gid }
        let matches = book.withLock { book in book.ids.keys.filter { $0.description.hasPrefix(text) }.prefix(2) }
        guard matches.count == 1, let gid = matches.first else { throw .failed("GID \(text) is not found") }
        return gid
    }

    /// The statuses of the queue's downloads in `phases`, in priority order.
    func statuses(in phases: Set<DownloadQueue.Phase>) -> [Aria2Status] {
        let downloads = queue.downloads(in: phases)
        let entries = book.withLock { book in downloads.map { book.entries[$0.id] } }
        return zip(downloads, entries).compactMap { download, entry in entry.map { status(download, $0) } }
    }

    /// The statuses of `outcomes` (ended downloads).
    func statuses(of outcomes: some Collection<DownloadQueue.Outcome>) -> [Aria2Status] {
        let entries = book.withLock { book in outcomes.map { book.entries[$0.id] } }
        return zip(outcomes, entries).compactMap { outcome, entry in entry.map { status(outcome, $0) } }
    }

    /// The status of one download, or aria2's failure when the GID is unknown.
    func status(of gid: GID) throws(RPCFailure.Kind) -> Aria2Status {
        let id = try id(of: gid)
        guard let entry = book.withLock({ $0.entries[id] }) else { throw .failed("GID \(gid) is not found") }
        if let status = queue.status(of: id) { return self.status(status, entry) }
        if let outcome = queue.outcomes.last(where: { $0.id == id }) { return self.status(outcome, entry) }
        throw .failed("GID \(gid) is not found")
    }

    private func status(_ status: DownloadQueue.Status, _ entry: Entry) -> Aria2Status {
        let word: Aria2Status.Word =
            switch status.phase {
            case .running: .active
            case .queued: .waiting
            case .paused: .paused
            }
        let progress = status.progress
        return Aria2Status(
            gid: entry.gid, word: word, totalLength: progress?.totalBytes ?? 0, completedLength: progress?.completedBytes ?? 0,
            downloadSpeed: word == .active ? progress?.bytesPerSecond ?? 0 : 0,
            connections: word == .active ? progress?.activeConnections ?? 0 : 0,
            dir: Self.folder(of: status.request.destination, path: status.path),
            path: status.path ?? Self.expectedPath(status.request), uris: [status.request.url] + status.request.mirrors,
            details: .live(queue, status.id))
    }

    private func status(_ outcome: DownloadQueue.Outcome, _ entry: Entry) -> Aria2Status {
        let request = outcome.request
        let uris = [request.url] + request.mirrors
        switch outcome.result {
        case .success(let result):
            return Aria2Status(
                gid: entry.gid, word: .complete, totalLength: result.bytes, completedLength: result.bytes, downloadSpeed: 0,
                connections: 0, dir: FileSystem.folder(of: result.path), path: result.path, uris: uris, errorCode: 0,
                errorMessage: "", details: .fixed(Self.completeDetails(result.bytes)))
        case .failure(let error):
            let removed = entry.removed && error.code == .cancelled
            // The file's own name, not its `.part` (as aria2 tells it), whichever the error names.
            var path = error.resumableFile ?? error.path ?? Self.expectedPath(request)
            if path.hasSuffix(".part") { path.removeLast(".part".count) }
            // A checksum that failed means no piece is known good (aria2 says the same).
            let verified = error.code == .checksum ? 0 : outcome.progress?.completedBytes ?? 0
            let details = outcome.details.map { details in
                error.code == .checksum
                    ? DownloadDetails(
                        pieceLength: details.pieceLength, totalBytes: details.totalBytes, completedBytes: 0,
                        completedPieces: details.completedPieces.map { _ in 0 }, numPieces: details.numPieces, connections: [])
                    : details
            }
            return Aria2Status(
                gid: entry.gid, word: removed ? .removed : .error, totalLength: outcome.progress?.totalBytes ?? 0,
                completedLength: verified, downloadSpeed: 0, connections: 0,
                dir: Self.folder(of: request.destination, path: path), path: path, uris: uris,
                errorCode: removed ? 31 : error.aria2Code, errorMessage: removed ? "Removed" : error.message, details: .fixed(details))
        }
    }

    /// The details of a complete file: every piece done.
    private static func completeDetails(_ bytes: Int64) -> DownloadDetails {
        let length = DownloadDetails.defaultPieceLength
        let count = Int((bytes + length - 1) / length)
        var bits = [UInt8](repeating: 0xFF, count: count / 8)
        if count % 8 != 0 { bits.append(0xFF << UInt8(8 - count % 8)) }
        return DownloadDetails(
            pieceLength: length, totalBytes: bytes, completedBytes: bytes, completedPieces: bits, numPieces: count, connections: [])
    }

    private static func folder(of destination: DownloadDestination, path: String?) -> String {
        if let path, !path.isEmpty { return FileSystem.folder(of: path) }
        switch destination {
        case .folder(let folder): return folder
        case .file(let file): return FileSystem.folder(of: file)
        case .stream: return ""
        }
    }

    private static func expectedPath(_ request: DownloadQueue.Request) -> String {
        if case .file(let path) = request.destination { return path }
        return ""
    }

    // MARK: The methods

    /// `tellStatus(gid[, keys])`.
    func tellStatus(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        try status(of: gid(params, 0)).json(keys: params.keys(1))
    }

    /// `getUris(gid)`: of a download that has not ended (aria2 keeps no URIs of the others).
    func getUris(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let status = try status(of: gid)
        guard [.active, .waiting, .paused].contains(status.word) else {
            throw .failed("No URI data is available for GID#\(gid)")
        }
        return status.uriList
    }

    /// `getFiles(gid)`.
    func getFiles(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        .array([try status(of: gid(params, 0)).file])
    }

    /// `getServers(gid)`: for an active download, its connections: each URI and its speed.
    func getServers(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try id(of: gid)
        guard queue.status(of: id)?.phase == .running, let details = queue.details(of: id) else {
            throw .failed("No active download for GID#\(gid)")
        }
        let servers: [JSONValue] = details.connections.map { connection in
            [
                "uri": .string(connection.url), "currentUri": .string(connection.url),
                "downloadSpeed": Aria2Status.text(Int64(connection.bytesPerSecond.rounded())),
            ]
        }
        return [["index": "1", "servers": .array(servers)]]
    }

    /// `slipstream.getPieces(gid)`: the page's picture of a download: its bitfield and what
    /// each connection has in flight.
    func getPieces(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let status = try status(of: gid(params, 0))
        let details = status.details.read()
        let connections: [JSONValue] = (details?.connections ?? []).map { connection in
            [
                "uri": .string(connection.url),
                "downloadSpeed": Aria2Status.text(Int64(connection.bytesPerSecond.rounded())),
                "start": Aria2Status.text(connection.range?.lowerBound ?? 0),
                "end": Aria2Status.text(connection.range?.upperBound ?? 0),
            ]
        }
        return [
            "pieceLength": Aria2Status.text(details?.pieceLength ?? DownloadDetails.defaultPieceLength),
            "numPieces": Aria2Status.text(Int64(details?.numPieces ?? 0)),
            "bitfield": .string(Aria2Status.hex(details?.completedPieces ?? [])),
            "totalLength": Aria2Status.text(details?.totalBytes ?? status.totalLength),
            "connections": .array(connections),
        ]
    }

    /// `tellActive([keys])`.
    func tellActive(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let keys = try params.keys(0)
        return .array(statuses(in: [.running]).map { $0.json(keys: keys) })
    }

    /// `tellWaiting(offset, num[, keys])`: waiting and paused downloads in queue order.
    func tellWaiting(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let keys = try params.keys(2)
        // The page first: the statuses of the others are never made.
        let page = try Self.page(queue.downloads(in: [.queued, .paused]), params)
        let entries = book.withLock { book in page.map { book.entries[$0.id] } }
        return .array(zip(page, entries).compactMap { download, entry in entry.map { status(download, $0).json(keys: keys) } })
    }

    /// `tellStopped(offset, num[, keys])`: ended downloads, oldest first.
    func tellStopped(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let keys = try params.keys(2)
        return .array(statuses(of: try Self.page(queue.outcomes, params)).map { $0.json(keys: keys) })
    }

    /// aria2's paging: `num` items from `offset`; a negative offset counts from the end
    /// (-1: the last) and lists backwards from there.
    static func page<Item>(_ items: [Item], _ params: Aria2Params) throws(RPCFailure.Kind) -> [Item] {
        let offset = try params.integer(0)
        let count = try params.integer(1)
        guard count >= 0 else { throw .failed("num must not be negative") }
        guard count > 0 else { return [] }
        if offset >= 0 {
            guard offset < items.count else { return [] }
            return Array(items[offset..<min(items.count, offset + min(count, items.count))])
        }
        let start = items.count + offset
        guard start >= 0 else { return [] }
        return Array(items[max(0, start - count + 1)...start].reversed())
    }

    /// `getGlobalStat()`.
    func getGlobalStat() -> JSONValue {
        let running = queue.downloads(in: [.running])
        let speed = running.reduce(0.0) { $0 + ($1.progress?.bytesPerSecond ?? 0) }
        let stopped = queue.outcomes.count
        return [
            "downloadSpeed": Aria2Status.text(Int64(speed.rounded())), "uploadSpeed": "0",
            "numActive": Aria2Status.text(Int64(running.count)), "numWaiting": Aria2Status.text(Int64(queue.waitingCount)),
            "numStopped": Aria2Status.text(Int64(stopped)), "numStoppedTotal": Aria2Status.text(Int64(stopped)),
        ]
    }
}
