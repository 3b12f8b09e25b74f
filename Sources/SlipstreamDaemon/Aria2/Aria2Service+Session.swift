extension Aria2Service {
    /// The downloads not yet ended, as a session list in priority order: each with its URIs,
    /// its GID, its folder and file name (once known), paused ones marked paused, and the
    /// options it was given by aria2's names.
    func session() -> DownloadList {
        let entries = book.withLock { $0.entries }
        let list: [DownloadList.Entry] = queue.downloads.compactMap { status in
            guard let entry = entries[status.id] else { return nil }
            // In aria2's spelling (pause=true, checksum=sha-256=...), so that aria2 reads it too.
            var item = DownloadList.Entry(urls: [status.request.url] + status.request.mirrors)
            switch (status.path, status.request.destination) {
            case (let path?, _), (nil, .file(let path)):
                item.out = FileSystem.name(of: path)
                item.dir = FileSystem.folder(of: path)
            case (nil, .folder(let folder)):
                item.dir = folder
            case (nil, .stream):
                break
            }
            item.options = [("gid", entry.gid.description)]
            if status.phase == .paused { item.options.append(("pause", "true")) }
            if let checksum = status.request.checksum { item.options.append(("checksum", Aria2Options.aria2Checksum(checksum))) }
            item.options += entry.options.pairs.filter { !["dir", "out", "checksum"].contains($0.key) }
            return item
        }
        return DownloadList(entries: list, isSession: true)
    }

    /// Adds the downloads of a session or an aria2 input file, keeping their GIDs, folders,
    /// names, options and pauses; returns the problems of those that could not be added (each
    /// naming its line), the others being added.
    func restore(_ list: DownloadList) -> [String] {
        var problems: [String] = []
        for entry in list.entries {
            do throws(RPCFailure.Kind) {
                var options = try Aria2Options(pairs: entry.options)
                if let dir = entry.dir { options.dir = dir }
                if let out = entry.out { try options.set("out", out) }
                if let checksum = entry.checksum { options.checksum = checksum }
                if entry.paused { options.pause = true }
                try add(uris: entry.urls, options: options, position: nil)
            } catch {
                problems.append("line \(entry.line): \(error.message)")
            }
        }
        return problems
    }
}
