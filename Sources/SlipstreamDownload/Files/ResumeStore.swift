#if canImport(Glibc)
import Glibc
#endif

/// The resume records of one `.part` file, on disk:
///
/// - `FILE.part.slipstream`, the durable record: replaced atomically (temp file, fsync, rename,
///   fsync of the folder), at most once a second, claiming only bytes fsynced before it;
/// - `FILE.part.slipstream.live`, the live record: rewritten in place without fsync, ten times
///   a second, and trusted only in the boot that wrote it (and only whole: its CRC must hold).
///   A killed process loses none of the data it wrote (the kernel still has it), so after
///   `kill -9` the live record saves refetching up to a second of data; after a crash (a new
///   boot) only the durable one counts.
///
/// A record's size never changes during a download, so both are written over blocks that
/// already exist: the live file in place, the durable one through a temp file kept allocated
/// for the next replacement. A disk that fills up after the start cannot stop them.
struct ResumeStore: Sendable {
    /// What `load` found.
    enum Found: Equatable {
        case nothing
        case record(ControlFile)
        case damaged(String)
    }

    /// The `.part` file the records describe.
    let partPath: String
    var durablePath: String { partPath + ".slipstream" }
    var livePath: String { partPath + ".slipstream.live" }
    /// The longest path it writes: the live record's (the durable one's temporary file,
    /// `.slipstream.tmp`, is a byte shorter).
    var longestPath: String { livePath }

    /// The record to resume from: the live one when it was written in this boot for the same
    /// remote file as the durable one, else the durable one.
    func load() -> Found {
        let durable = Self.read(durablePath)
        let live = Self.read(livePath)
        if case .record(let record)? = live, record.bootID == Self.bootID {
            if case .record(let base)? = durable {
                if base.size == record.size, base.etag == record.etag, base.lastModified == record.lastModified,
                    base.pieceSize == record.pieceSize
                {
                    return .record(record)
                }
            } else {
                return .record(record)
            }
        }
        switch durable {
        case nil where live != nil:
            // Only a live record that cannot be trusted (another boot's, or damaged): unusable,
            // but on disk.
            return .damaged("\(livePath) cannot be trusted without a durable record")
        case nil: return .nothing
        case .damaged(let reason)?: return .damaged(reason)
        case let found?: return found
        }
    }

    /// Replaces the durable record. The caller has fsynced the data it claims.
    func saveDurable(_ record: ControlFile) throws(DownloadError) {
        var durable = record
        durable.bootID = [UInt8](repeating: 0, count: 16)
        let bytes = durable.encoded()
        let temporary = durablePath + ".tmp"
        try Self.write(bytes, over: temporary, sync: true)
        guard rename(temporary, durablePath) == 0 else {
            throw DownloadError(.disk, "cannot rename \(temporary) to \(durablePath): \(FileSystem.lastError)", path: durablePath)
        }
        let folder = open(FileSystem.folder(of: durablePath), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        // The next replacement's temp file, allocated now while the old record's blocks are free.
        let spare = open(temporary, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if spare >= 0 {
            _ = posix_fallocate(spare, 0, off_t(bytes.count))
            close(spare)
        }
    }

    /// Replaces the live record (no fsync; valid in this boot only).
    func saveLive(_ record: ControlFile) throws(DownloadError) {
        var live = record
        live.bootID = Self.bootID
        try Self.write(live.encoded(), over: livePath, sync: false)
    }

    /// Removes both records (and the spare temp file).
    func remove() {
        unlink(durablePath)
        removeAllButDurable()
    }

    /// Removes the live record and the spare temp file: the durable record alone still resumes.
    func removeAllButDurable() {
        unlink(livePath)
        unlink(durablePath + ".tmp")
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`) as 16 bytes; all 0xFF if unreadable,
    /// which matches no record, so live records are then never trusted.
    static let bootID: [UInt8] = {
        guard let text = readSmallFile("/proc/sys/kernel/random/boot_id") else { return [UInt8](repeating: 0xFF, count: 16) }
        let hex = text.utf8.compactMap { byte -> UInt8? in
            switch byte {
            case 48...57: byte - 48
            case 97...102: byte - 87
            default: nil
            }
        }
        guard hex.count == 32 else { return [UInt8](repeating: 0xFF, count: 16) }
        return (0..<16).map { hex[2 * $0] << 4 | hex[2 * $0 + 1] }
    }()

    private static func read(_ path: String) -> Found? {
        guard FileSystem.exists(path) else { return nil }
        guard let bytes = readSmallBytes(path) else { return .damaged("cannot read \(path)") }
        do throws(ControlFile.DecodingError) {
            return .record(try ControlFile(decoding: bytes))
        } catch {
            return .damaged("\(path): \(error)")
        }
    }

    private static func readSmallFile(_ path: String) -> String? {
        readSmallBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads a file of at most 64 MiB.
    private static func readSmallBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue } else { return nil } }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
        return nil
    }

    /// Writes `bytes` over the start of `path` (created if missing, readable by its owner only:
    /// a record names a URL and its user; a record keeps its size, so only the first write to a
    /// file of another size, as an older run's record with a longer URL, cuts what follows),
    /// then fsyncs it when `sync`.
    private static func write(_ bytes: [UInt8], over path: String, sync: Bool) throws(DownloadError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DownloadError(.disk, "cannot write \(path): \(FileSystem.lastError)", path: path) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(written)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw DownloadError(errno == ENOSPC ? .noSpace : .disk, "cannot write \(path): \(FileSystem.lastError)")
            }
            written += count
        }
        var info = stat()
        if fstat(fd, &info) == 0 {
            if info.st_size > off_t(bytes.count) { _ = ftruncate(fd, off_t(bytes.count)) }
            // An older run's record may be readable by others.
            if info.st_mode & 0o077 != 0 { _ = fchmod(fd, 0o600) }
        }
        guard !sync || fsync(fd) == 0 else {
            throw DownloadError(.disk, "cannot sync \(path): \(FileSystem.lastError)", path: path)
        }
    }
}
