#if canImport(Glibc)
import Glibc
#endif

/// The folder the daemon's downloads may write into (aria2's `--dir`), and the check that keeps
/// every download inside it: a request's `dir` is a folder inside it (relative to it, or an
/// absolute path under it), with no `..`, and reaching no symbolic link that leads out of it;
/// its `out` is a file name (no `/`). aria2 writes wherever a request says; a page that can
/// POST to it can write `~/.bashrc`.
public struct DownloadFolder: Sendable, Equatable {
    /// The folder's real path (symbolic links resolved).
    public let path: String

    /// The folder at `path`, which must exist.
    public init(_ path: String) throws(RPCFailure) {
        guard let real = Self.realPath(path) else {
            throw RPCFailure(.failed("the download folder \(path) does not exist"), id: .null)
        }
        self.path = real
    }

    /// The folder a request's `dir` names (nil: this one), created if missing, or why not.
    public func folder(for dir: String?) throws(DownloadFolderRefusal) -> String {
        guard let dir, !dir.isEmpty else { return path }
        guard !dir.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .init("dir has a control character") }
        let components = dir.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.contains("..") else { throw .init("dir '\(dir)' has '..': downloads stay inside \(path)") }
        let relative: [Substring]
        if dir.hasPrefix("/") {
            let base = path.split(separator: "/", omittingEmptySubsequences: true)
            let plain = components.filter { $0 != "." }
            guard plain.starts(with: base) else { throw .init("dir '\(dir)' is outside the download folder \(path)") }
            relative = Array(plain.dropFirst(base.count))
        } else {
            relative = components.filter { $0 != "." }
        }
        var current = path
        for component in relative {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw .init("cannot create the folder \(current): \(String(cString: strerror(errno)))")
            }
            // A link (or a link on the way) that leads out of the folder is refused.
            guard let real = Self.realPath(current), real == path || real.hasPrefix(path + "/") else {
                throw .init("dir '\(dir)' leads out of the download folder \(path)")
            }
        }
        return current
    }

    /// Checks a request's `out`: a file name, not a path.
    public static func check(out name: String) throws(DownloadFolderRefusal) {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= 255 else {
            throw .init("out '\(name)' is not a file name")
        }
        guard !name.utf8.contains(UInt8(ascii: "/")) else { throw .init("out '\(name)' is a path: use dir for the folder") }
        guard !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .init("out has a control character") }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Why a request's `dir` or `out` is refused.
public struct DownloadFolderRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
