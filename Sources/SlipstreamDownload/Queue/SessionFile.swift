#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes session (and input) files: written whole to a temp file, fsynced and
/// renamed over the old one, so that a reader sees the old file or the new one, never a mix.
public enum SessionFile {
    /// Replaces the file at `path` with `text` atomically, readable by its owner only (a
    /// session keeps its downloads' URLs whole, logins too, to go on with them).
    public static func write(_ text: String, to path: String) throws(DownloadError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DownloadError(.disk, "cannot write the session \(temporary): \(FileSystem.lastError)", path: temporary) }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = DownloadError(
                    errno == ENOSPC ? .noSpace : .disk, "cannot write the session \(temporary): \(FileSystem.lastError)", path: temporary)
                close(fd)
                throw error
            }
            written += count
        }
        let synced = fdatasync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            throw DownloadError(.disk, "cannot save the session \(path): \(FileSystem.lastError)", path: path)
        }
    }

    /// The largest download list read: 64 MiB (some 500,000 lines of URLs and options).
    public static let maximumSize = 64 << 20

    /// Reads a download list from `path` (`-` for standard input); one larger than
    /// `maximumSize` (as `/dev/zero`) is an `.input` error, read no further.
    /// `keeping`: the options kept in each entry's `options` (see `DownloadList.parse`).
    public static func read(_ path: String, keeping: Set<String> = []) throws(DownloadError) -> DownloadList {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DownloadError(.disk, "cannot read \(path): \(FileSystem.lastError)", path: path) }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw DownloadError(.disk, "cannot read \(path): \(FileSystem.lastError)", path: path) }
            if count == 0 { break }
            guard bytes.count + count <= maximumSize else {
                throw DownloadError(
                    .input, "\(path == "-" ? "standard input" : path) is larger than \(maximumSize >> 20) MiB: not a download list",
                    path: path)
            }
            bytes += chunk[..<count]
        }
        do {
            return try DownloadList.parse(String(decoding: bytes, as: UTF8.self), keeping: keeping)
        } catch {
            throw DownloadError(.input, "\(path == "-" ? "standard input" : path): \(error)", path: path, underlying: error)
        }
    }
}
