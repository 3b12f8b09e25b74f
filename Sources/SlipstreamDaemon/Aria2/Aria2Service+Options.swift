extension Aria2Service {
    /// `getOption(gid)`: the options of a download, by aria2's names (the daemon's defaults,
    /// then those it was given), values as strings.
    func getOption(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try id(of: gid)
        let (entry, global) = book.withLock { ($0.entries[id], $0.global) }
        guard let entry else { throw .failed("GID \(gid) is not found") }
        var options = global.defaults
        options.merge(entry.options, given: entry.options.pairs.map(\.key))
        return .object(Self.merged(Self.downloadDefaultPairs(folder: folder.path), options.pairs))
    }

    /// `changeOption(gid, options)`: a running download's `max-download-limit` changes at
    /// once; other options restart it from its `.part` file with them.
    func changeOption(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        let gid = try gid(params, 0)
        let id = try id(of: gid)
        let given = try Aria2Options(params.optional(1))
        let names = (params.optional(1)?.members ?? []).map(\.key).filter { Aria2Options.names.contains($0) }
        guard let entry = book.withLock({ $0.entries[id] }) else { throw .failed("GID \(gid) is not found") }
        var options = entry.options
        options.merge(given, given: names)
        if names == ["max-download-limit"] {
            guard queue.status(of: id) != nil else { throw .failed("GID \(gid) has ended") }
            queue.setBytesPerSecondLimit(options.maxDownloadLimit.flatMap { $0 > 0 ? $0 : nil }, of: id)
        } else if !names.isEmpty {
            let uris = try status(of: gid).uris
            let request = try request(uris: uris, options: options)
            try change(id, gid) { $0 = request }
        }
        book.withLock { $0.entries[id]?.options = options }
        return "OK"
    }

    /// `getGlobalOption()`: the daemon's options, by aria2's names, values as strings.
    func getGlobalOption() -> JSONValue {
        let global = book.withLock { $0.global }
        var members = Self.downloadDefaultPairs(folder: folder.path)
        members += [
            // Always: a download resumes from its .part whenever it can prove the file the same.
            ("continue", "true"),
            ("max-concurrent-downloads", .string(String(global.maxConcurrentDownloads))),
            ("max-overall-download-limit", .string(String(global.maxOverallDownloadLimit))),
        ]
        return .object(Self.merged(members, global.defaults.pairs))
    }

    /// `changeGlobalOption(options)`: `max-concurrent-downloads` and
    /// `max-overall-download-limit` take effect at once; the defaults of new downloads change
    /// for those added later. The folder cannot change (it bounds where downloads go).
    func changeGlobalOption(_ params: Aria2Params) throws(RPCFailure.Kind) -> JSONValue {
        guard let members = params.optional(0)?.members else { throw .failed("the options must be an object") }
        var global = book.withLock { $0.global }
        for (name, value) in members {
            guard let text = value.string ?? value.integer.map(String.init) else {
                throw .failed("option \(name): the value must be a string")
            }
            switch name {
            case "max-concurrent-downloads":
                global.maxConcurrentDownloads = try Aria2Value.integer(text, in: 1...1000).orThrow(
                    RPCFailure.Kind.failed("option max-concurrent-downloads: '\(text)' is not within 1-1000"))
            case "max-overall-download-limit":
                global.maxOverallDownloadLimit = try Aria2Value.size(text).orThrow(
                    RPCFailure.Kind.failed("option max-overall-download-limit: '\(text)' is not a size"))
            case "dir":
                throw .failed("option dir cannot change while the daemon runs: it bounds where downloads go")
            default:
                try global.setDownloadDefault(name, text)
            }
        }
        book.withLock { $0.global = global }
        queue.setMaxConcurrentDownloads(global.maxConcurrentDownloads)
        queue.setBytesPerSecondLimit(global.maxOverallDownloadLimit > 0 ? global.maxOverallDownloadLimit : nil)
        return "OK"
    }

    /// `defaults` with `given` over them, sorted by name; the headers as aria2 tells them, each
    /// line ended by a newline.
    private static func merged(
        _ defaults: [(key: String, value: JSONValue)], _ given: [(key: String, value: String)]
    ) -> [(key: String, value: JSONValue)] {
        var members = defaults.filter { member in !given.contains { $0.key == member.key } }
        let headers = given.filter { $0.key == "header" }.map { $0.value + "\n" }.joined()
        if !headers.isEmpty { members.append(("header", .string(headers))) }
        members += given.filter { $0.key != "header" }.map { ($0.key, .string($0.value)) }
        return members.sorted { $0.key < $1.key }
    }

    /// The options every download has unless told otherwise.
    private static func downloadDefaultPairs(folder: String) -> [(key: String, value: JSONValue)] {
        [
            ("dir", .string(folder)), ("max-download-limit", "0"), ("split", "8"), ("max-connection-per-server", "16"),
            ("min-split-size", .string(String(1 << 20))),
            ("user-agent", .string("Slipstream/\(SlipstreamVersion.string)")),
        ]
    }
}
