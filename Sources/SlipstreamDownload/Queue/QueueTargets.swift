/// The files the downloads of a queue write, so that a second download to one of them is
/// refused when it is added rather than failing later (or making the first fail). Pure.
///
/// Only what is certain counts: a `.file` destination's path, the final path of a download
/// once its server answered, and a URL fetched into a folder (the same URL into the same
/// folder gets the same name). A `.folder` destination's name is otherwise known only once the
/// server answers (`Content-Disposition` may choose it); two such downloads that turn out to
/// share a name are told apart by the `.part` file's lock and the final rename, which refuse
/// the second. Paths are compared as written, tidied of `.` parts and doubled slashes.
struct QueueTargets: Sendable, Equatable {
    /// A file, or a URL fetched into a folder: what a download certainly writes.
    enum Target: Hashable, Sendable {
        case file(String)
        case urlInFolder(url: String, folder: String)
    }

    private var owners: [Target: DownloadQueue.ID] = [:]
    private var claims: [DownloadQueue.ID: [Target]] = [:]

    /// What `request` certainly writes before any answer: nothing for a stream.
    static func target(of request: DownloadQueue.Request) -> Target? {
        switch request.destination {
        case .file(let path): .file(tidy(path))
        case .folder(let folder): .urlInFolder(url: request.url, folder: tidy(folder))
        case .stream: nil
        }
    }

    /// The download that writes what `request` would, if one does.
    func owner(of request: DownloadQueue.Request) -> DownloadQueue.ID? {
        Self.target(of: request).flatMap { owners[$0] }
    }

    /// `id` writes what `request` does (no-op for a stream).
    mutating func claim(_ request: DownloadQueue.Request, for id: DownloadQueue.ID) {
        if let target = Self.target(of: request) { claim(target, for: id) }
    }

    /// `id` writes `path`, its final path now that its server answered.
    mutating func claim(path: String, for id: DownloadQueue.ID) {
        claim(.file(Self.tidy(path)), for: id)
    }

    /// `id` has ended: what it wrote is free.
    mutating func release(_ id: DownloadQueue.ID) {
        for target in claims.removeValue(forKey: id) ?? [] where owners[target] == id {
            owners[target] = nil
        }
    }

    private mutating func claim(_ target: Target, for id: DownloadQueue.ID) {
        guard owners[target] == nil else { return }
        owners[target] = id
        claims[id, default: []].append(target)
    }

    /// `path` without `.` parts and doubled or trailing slashes (`./a//b/` is `a/b`); `..`
    /// stays, as resolving it would need the disk.
    static func tidy(_ path: String) -> String {
        let parts = path.split(separator: "/").filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        if path.hasPrefix("/") { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
