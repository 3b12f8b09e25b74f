#if canImport(Glibc)
import Glibc
#endif

/// The few path and file checks downloads need, on POSIX calls.
package enum FileSystem {
    /// The folder part of a path: `.` for a bare name, `/` for a file at the root.
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last part of a path.
    package static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// `folder/name`, or `name` alone for the current folder.
    static func join(_ folder: String, _ name: String) -> String {
        if folder == "." { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Whether anything exists at `path` (a dangling symbolic link counts).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What kind of thing is at `path` (following symbolic links), when it is neither missing
    /// nor a regular file or folder: "a device", "a pipe (FIFO)", "a socket". Such a path is
    /// written to in order or refused, never replaced by a file.
    static func specialKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFIFO: return "a pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        default: return "a device"
        }
    }

    /// Whether `path` is a folder (following symbolic links).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The size of the file at `path` in bytes, or nil when there is none.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The text of the current `errno`.
    static var lastError: String { String(cString: strerror(errno)) }

    /// The error of a failed call on `path`, by the current `errno`: `.noSpace` for a full
    /// disk, `.exists` for a name taken, else `.disk`; its message is `message`, then the reason.
    static func error(_ message: String, path: String) -> DownloadError {
        let code: DownloadError.Code =
            switch errno {
            case ENOSPC: .noSpace
            case EEXIST: .exists
            default: .disk
            }
        return DownloadError(code, "\(message): \(lastError)", path: path)
    }

    /// Bytes free for an unprivileged user on the filesystem holding `path`'s folder.
    static func freeBytes(near path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(folder(of: path), &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
