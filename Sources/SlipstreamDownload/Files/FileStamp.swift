import CFileSystem
import Glibc

/// A file's modification time and the ETag kept with it (in an extended attribute): what a
/// conditional download compares with the server's, and what a finished one is given.
struct FileStamp: Sendable, Equatable {
    /// The size in bytes.
    var size: Int64
    /// The modification time, whole seconds since 1970.
    var modified: Int
    /// The ETag kept in `etagAttribute`, where the filesystem has extended attributes.
    var etag: String?

    /// The extended attribute that keeps a downloaded file's ETag.
    static let etagAttribute = "user.slipstream.etag"
    /// The longest ETag kept or read, in bytes.
    private static let maxETagLength = 1024

    /// The stamp of the regular file at `path`; nil when there is none.
    static func read(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: maxETagLength)
        // ENOTSUP (no extended attributes here) and ENODATA (none kept) alike: no ETag.
        let length = getxattr(path, etagAttribute, &buffer, buffer.count)
        let etag = length > 0 ? String(decoding: buffer[..<length], as: UTF8.self) : nil
        return FileStamp(size: Int64(info.st_size), modified: Int(info.st_mtim.tv_sec), etag: etag)
    }

    /// Gives the file at `path` the modification time `modified` (seconds since 1970) and keeps
    /// `etag` with it, each where given. Best effort: a filesystem without extended attributes
    /// keeps no ETag (a later conditional download then asks by time alone).
    static func write(_ path: String, modified: Double?, etag: String?) {
        if let modified {
            let now = timespec(tv_sec: 0, tv_nsec: slipstream_utime_omit)
            let times = [now, timespec(tv_sec: time_t(modified), tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, path, times, 0)
        }
        if let etag, etag.utf8.count <= maxETagLength {
            _ = setxattr(path, etagAttribute, etag, etag.utf8.count, 0)
        } else {
            _ = removexattr(path, etagAttribute)
        }
    }
}
