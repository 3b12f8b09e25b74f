extension DownloadQueue {
    /// The downloads not yet finished, as a session list in priority order: each with its
    /// folder and, once known, its file name; paused ones marked paused.
    public func session() -> DownloadList {
        let entries = downloads.map { status in
            var entry = DownloadList.Entry(
                urls: [status.request.url] + status.request.mirrors,
                checksum: status.request.checksum, paused: status.phase == .paused)
            switch (status.path, status.request.destination) {
            case (let path?, _), (nil, .file(let path)):
                entry.out = FileSystem.name(of: path)
                entry.dir = FileSystem.folder(of: path)
            case (nil, .folder(let folder)):
                entry.dir = folder
            case (nil, .stream):
                break
            }
            return entry
        }
        return DownloadList(entries: entries, isSession: true)
    }

    /// Writes the session to `configuration.sessionPath` now, if one is set, and returns when
    /// it is on disk.
    public func saveSession() async throws(DownloadError) {
        guard let path = configuration.sessionPath else { return }
        let result: Result<Void, DownloadError> = await withCheckedContinuation { continuation in
            sessionQueue.async { [self] in
                state.withLock { $0.sessionDirty = false }
                continuation.resume(
                    returning: Result { () throws(DownloadError) in
                        try SessionFile.write(session().render(), to: path)
                    })
            }
        }
        try result.get()
    }

    /// Has the session file rewritten soon, on the session queue: changes that come while it is
    /// being written are taken in one more write.
    func requestSessionSave() {
        guard let path = configuration.sessionPath else { return }
        let start = state.withLock { state in
            state.sessionDirty = true
            guard !state.sessionSaving else { return false }
            state.sessionSaving = true
            return true
        }
        guard start else { return }
        sessionQueue.async { [self] in
            while state.withLock({ state in
                guard state.sessionDirty else {
                    state.sessionSaving = false
                    return false
                }
                state.sessionDirty = false
                return true
            }) {
                // A failed write is tried again at the next change, and reported by `saveSession`.
                try? SessionFile.write(session().render(), to: path)
            }
        }
    }
}
