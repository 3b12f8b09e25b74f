import SlipstreamHTTP

extension Aria2Service {
    /// `addUri(uris[, options[, position]])`: one download of the file at `uris` (the first its
    /// URL, the others mirrors of the same file); returns its GID.
    func addUri(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let uris = try params.strings(0)
        guard !uris.isEmpty else { throw .failed("No URI to download.") }
        let options = try Aria2Options(params.optional(1))
        let position = params.count > 2 ? try params.integer(2) : nil
        return .string(try add(uris: uris, options: options, position: position).description)
    }

    /// `addMetalink(metalink[, options[, position]])`: the document is base64; one download per
    /// file it lists (its URLs by priority, as mirrors; its size and strongest hash checked);
    /// returns their GIDs.
    func addMetalink(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        guard let bytes = Base64.decode(try params.string(0)) else { throw .failed("the metalink is not base64") }
        let document: MetalinkDocument
        do {
            document = try MetalinkDocument.parse(bytes)
        } catch {
            throw .failed("the metalink cannot be read: \(error)")
        }
        let given = try Aria2Options(params.optional(1))
        let position = params.count > 2 ? try params.integer(2) : nil
        // Every file is checked before any is added: all of them, or none.
        var downloads: [(uris: [String], options: Aria2Options)] = []
        for file in document.files {
            let uris = file.downloadableURLs.map(\.url)
            guard !uris.isEmpty else { throw .failed("\(file.name) has no HTTP, FTP or SFTP URL") }
            var options = given
            try options.set("out", file.fileName)
            if let folder = file.folder { options.dir = (given.dir.map { $0 + "/" } ?? "") + folder }
            options.checksum = given.checksum ?? file.checksum
            if document.files.count > 1 { options.gid = nil }
            _ = try request(uris: uris, options: options)
            downloads.append((uris, options))
        }
        var gids: [JSONValue] = []
        for (index, download) in downloads.enumerated() {
            let gid = try add(uris: download.uris, options: download.options, position: position.map { $0 + index })
            gids.append(.string(gid.description))
        }
        return .array(gids)
    }

    /// Adds a download and returns its GID. Its events are looked at on the daemon's call
    /// queue, after this call: the GID is known by then.
    @discardableResult
    func add(uris: [String], options: Aria2Options, position: Int?) throws(RPCFailure.Kind) -> GID {
        let request = try request(uris: uris, options: options)
        if let wanted = options.gid, book.withLock({ $0.ids[wanted] != nil }) {
            throw .failed("GID \(wanted) is already in use")
        }
        let id: DownloadQueue.ID
        do {
            id = try queue.add(request, paused: options.pause)
        } catch {
            throw .failed(error.message)
        }
        let gid: GID? = book.withLock { book in
            let gid = options.gid ?? GID.random { book.ids[$0] != nil }
            guard book.ids[gid] == nil else { return nil }
            book.ids[gid] = id
            book.entries[id] = Entry(gid: gid, options: options)
            return gid
        }
        guard let gid else {
            queue.cancelAndRemoveFiles(id)
            throw .failed("GID \(options.gid?.description ?? "") is already in use")
        }
        if let position { queue.move(id, toWaitingPosition: position) }
        forgetOldEntries()
        return gid
    }

    /// The queue's request for `uris` with `options` over the daemon's defaults.
    func request(uris: [String], options given: Aria2Options) throws(RPCFailure.Kind) -> DownloadQueue.Request {
        var options = book.withLock { $0.global.defaults }
        options.merge(given, given: given.pairs.map(\.key))
        let folder: String
        do throws(DownloadFolderRefusal) {
            folder = try self.folder.folder(for: options.dir)
        } catch {
            throw .failed(error.description)
        }
        var headers = HTTPHeaders()
        for header in options.headers { headers.add(name: header.name, value: header.value) }
        if let referer = options.referer { headers.add(name: "Referer", value: referer) }
        var request = DownloadQueue.Request(
            url: uris[0], mirrors: Array(uris.dropFirst()),
            destination: options.out.map { .file(folder + "/" + $0) } ?? .folder(folder), checksum: options.checksum,
            headers: headers)
        // aria2's connections: `split` of them, at most `max-connection-per-server` to each server.
        if let split = options.split { request.connections = split }
        if let perServer = options.maxConnectionPerServer {
            request.connections = min(request.connections ?? split(default: perServer * uris.count), perServer * uris.count)
        }
        request.minimumSplitSize = options.minSplitSize
        request.bytesPerSecondLimit = options.maxDownloadLimit.flatMap { $0 > 0 ? $0 : nil }
        request.userAgent = options.userAgent
        request.proxy = options.allProxy
        return request
    }

    /// The connections a download has when only `max-connection-per-server` is given: the
    /// queue's own number, within that bound.
    private func split(default bound: Int) -> Int {
        min(queue.configuration.download.connections, bound)
    }

    /// Forgets what it kept of downloads the queue no longer has (their outcomes dropped), so
    /// that a daemon that runs for months stays small. Looks only when the book has doubled
    /// since it last looked: adding stays O(1) on average, whatever the queue holds.
    func forgetOldEntries() {
        let due = book.withLock { $0.entries.count > $0.pruneAt }
        guard due else { return }
        var live = Set(queue.downloads.map(\.id))
        live.formUnion(queue.outcomes.map(\.id))
        book.withLock { book in
            for (id, entry) in book.entries where !live.contains(id) {
                book.entries[id] = nil
                book.ids[entry.gid] = nil
            }
            book.pruneAt = max(2 * book.entries.count, 2048)
        }
    }
}
