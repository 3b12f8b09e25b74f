import Dispatch
import Synchronization

/// Keeps a daemon's session file: written whole and atomically (`SessionFile.write`), on its
/// own queue, after changes (those that come while it writes are taken in one more write) and
/// when asked.
final class SessionWriter: Sendable {
    private struct State {
        var dirty = false
        var writing = false
        var source: (@Sendable () -> DownloadList)?
    }

    let path: String
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "slipstream.daemon.session")

    init(path: String) {
        self.path = path
    }

    /// What to write: the session as it is when written.
    var source: (@Sendable () -> DownloadList)? {
        get { state.withLock { $0.source } }
        set { state.withLock { $0.source = newValue } }
    }

    /// Has the file written soon.
    func changed() {
        let start = state.withLock { state in
            state.dirty = true
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            while let source = state.withLock({ state -> (@Sendable () -> DownloadList)? in
                guard state.dirty else {
                    state.writing = false
                    return nil
                }
                state.dirty = false
                return state.source
            }) {
                // A failed write is tried again at the next change, and reported by `writeNow`.
                try? SessionFile.write(source().render(), to: path)
            }
        }
    }

    /// Writes the file now, and returns once it is on disk.
    func writeNow() throws(DownloadError) {
        let result: Result<Void, DownloadError> = queue.sync {
            state.withLock { $0.dirty = false }
            guard let source = self.source else { return .success(()) }
            return Result { () throws(DownloadError) in try SessionFile.write(source().render(), to: path) }
        }
        try result.get()
    }
}
