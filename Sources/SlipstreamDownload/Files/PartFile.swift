#if canImport(Glibc)
import Glibc
#endif
import CFileSystem
import Synchronization

/// The `.part` file a download writes into: positioned writes from libcurl's buffers
/// straight to the file (no copy), preallocation, and the final rename. While open and named it
/// holds an exclusive lock (`flock`) on the file, so that two downloads (in this process or
/// another) never write one `.part`: the second gets a clear error instead. (An unnamed file
/// needs none until it is named: no one else can open it.)
///
/// A fresh download's file may start without a name (`unnamed(for:)`): it gets its `.part`
/// name only if it needs one, and a small file never does, as it goes straight to its final
/// name when it is complete.
final class PartFile: Sendable {
    /// The `.part` path: where the file is, or will be once named.
    let path: String
    let descriptor: Int32
    private let named: Mutex<Bool>

    /// Opens `path` for a fresh download, emptied (an earlier run's file with no usable records
    /// is overwritten).
    convenience init(creating path: String) throws(DownloadError) {
        try self.init(path, flags: O_CREAT, verb: "create")
        // (Not a regular file, such as /dev/null: nothing to empty.)
        guard ftruncate(descriptor, 0) == 0 || errno == EINVAL else {
            Glibc.close(descriptor)
            throw DownloadError(.disk, "cannot empty \(path): \(FileSystem.lastError)", path: path)
        }
    }

    /// Creates `path`, which must not exist yet (nil when it does, or cannot be made).
    static func creatingNew(_ path: String) -> PartFile? {
        try? PartFile(path, flags: O_CREAT | O_EXCL, verb: "create")
    }

    /// Opens an existing `path` for writing, keeping its bytes (to resume).
    convenience init(resuming path: String) throws(DownloadError) {
        try self.init(path, flags: 0, verb: "open")
    }

    /// A new file in the folder of `path` that has no name yet (`O_TMPFILE`): it becomes `path`
    /// with `name()`, or the final file with `rename`, and is gone if it is closed before.
    /// Making it does not hold the folder (only naming it does), so several can be made at once.
    /// Nil where the filesystem cannot make one.
    static func unnamed(for path: String) -> PartFile? {
        guard canLinkUnnamed else { return nil }
        return try? PartFile(path, folderFlags: SLIPSTREAM_O_TMPFILE)
    }

    /// Whether an unnamed file can be named (through `/proc/self/fd`).
    private static let canLinkUnnamed = access("/proc/self/fd", X_OK) == 0

    private convenience init(_ path: String, flags: Int32, verb: String) throws(DownloadError) {
        // Creating a name: one at a time in the process (see `NameChangeLock`).
        let fd =
            flags & O_CREAT == 0
            ? open(path, O_WRONLY | O_CLOEXEC | flags, 0o644)
            : NameChangeLock.shared.withLock { open(path, O_WRONLY | O_CLOEXEC | flags, 0o644) }
        guard fd >= 0 else {
            throw DownloadError(.disk, "cannot \(verb) \(path): \(FileSystem.lastError)", path: path)
        }
        try self.init(path, descriptor: fd, named: true)
    }

    private convenience init(_ path: String, folderFlags: Int32) throws(DownloadError) {
        let fd = open(FileSystem.folder(of: path), O_WRONLY | O_CLOEXEC | folderFlags, 0o644)
        guard fd >= 0 else {
            throw DownloadError(.disk, "cannot create a file for \(path): \(FileSystem.lastError)", path: path)
        }
        try self.init(path, descriptor: fd, named: false)
    }

    private init(_ path: String, descriptor fd: Int32, named: Bool) throws(DownloadError) {
        if named {
            do throws(DownloadError) { try Self.lock(fd, path: path) } catch {
                Glibc.close(fd)
                throw error
            }
        }
        self.path = path
        descriptor = fd
        self.named = Mutex(named)
    }

    /// Takes the exclusive lock on the file open at `fd` (see the type's comment).
    private static func lock(_ fd: Int32, path: String) throws(DownloadError) {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw errno == EWOULDBLOCK
                ? DownloadError(.output, "\(path) is being written by another download", path: path)
                : DownloadError(.disk, "cannot lock \(path): \(FileSystem.lastError)", path: path)
        }
    }

    /// Whether the file has a name (else it is unnamed: see `unnamed(for:)`).
    var isNamed: Bool { named.withLock { $0 } }

    /// A path the file can be read at, named or not.
    var readablePath: String { isNamed ? path : "/proc/self/fd/\(descriptor)" }

    /// Gives an unnamed file its `.part` name, which must be free.
    func name() throws(DownloadError) {
        guard !isNamed else { return }
        try Self.lock(descriptor, path: path)
        guard link(as: path) == 0 else {
            throw errno == EEXIST
                ? DownloadError(.output, "\(path) is being written by another download", path: path)
                : DownloadError(.disk, "cannot create \(path): \(FileSystem.lastError)", path: path)
        }
        named.withLock { $0 = true }
    }

    /// Whether an unnamed file is linked by its descriptor (`AT_EMPTY_PATH`, one step) rather
    /// than through `/proc/self/fd` (a lookup in `/proc` first). Cleared the first time the
    /// kernel refuses the former where the latter works.
    static let linksByDescriptor = Atomic<Bool>(true)

    /// Links the unnamed file at `destination` (failing if it exists): 0, else -1 and `errno`.
    private func link(as destination: String) -> Int32 {
        NameChangeLock.shared.withLock {
            let byDescriptor = Self.linksByDescriptor.load(ordering: .relaxed)
            if byDescriptor {
                if linkat(descriptor, "", AT_FDCWD, destination, SLIPSTREAM_AT_EMPTY_PATH) == 0 { return 0 }
                // Refused for want of a capability (ENOENT, EPERM) or unknown (EINVAL): try /proc.
                guard errno == ENOENT || errno == EPERM || errno == EINVAL else { return -1 }
            }
            let result = linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, destination, AT_SYMLINK_FOLLOW)
            if byDescriptor, result == 0 { Self.linksByDescriptor.store(false, ordering: .relaxed) }
            return result
        }
    }

    /// Flushes the file's data to the disk (fdatasync).
    func synchronize() throws(DownloadError) {
        guard fdatasync(descriptor) == 0 else {
            throw DownloadError(.disk, "cannot sync \(path): \(FileSystem.lastError)", path: path)
        }
    }

    /// Makes the file `size` bytes long: allocated on disk when `allocate` (so a full disk is
    /// found before the download starts, and cannot stop it later), else sparse.
    func reserve(_ size: Int64, allocate: Bool) throws(DownloadError) {
        guard size > 0 else { return }
        guard allocate else {
            guard ftruncate(descriptor, off_t(size)) == 0 else {
                throw DownloadError(.disk, "cannot size \(path): \(FileSystem.lastError)", path: path)
            }
            return
        }
        let result = posix_fallocate(descriptor, 0, off_t(size))
        switch result {
        case 0:
            return
        case EFBIG:
            throw Self.tooLargeError(path, size: size)
        case ENOSPC:
            throw DownloadError(
                .noSpace,
                "not enough space for \(path): it needs \(size) bytes, "
                    + "\(FileSystem.freeBytes(near: path).map { "\($0) bytes are free" } ?? "the disk is full")", path: path)
        default:
            // Filesystems without preallocation: grow the file instead; a full disk then shows at write time.
            guard ftruncate(descriptor, off_t(size)) == 0 else {
                throw DownloadError(.disk, "cannot size \(path): \(FileSystem.lastError)", path: path)
            }
        }
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                if code == ENOSPC || code == EDQUOT {
                    throw DownloadError(.noSpace, "the disk is full writing \(path) at byte \(offset + Int64(done))", path: path)
                }
                if code == EFBIG { throw Self.tooLargeError(path, size: offset + Int64(bytes.count)) }
                throw DownloadError(
                    .disk, "cannot write \(path) at byte \(offset + Int64(done)): \(String(cString: strerror(code)))",
                    path: path)
            }
            done += count
        }
    }

    /// A file that may not be `size` bytes long: past the limit of this process (`ulimit -f`,
    /// SIGXFSZ ignored) or of the filesystem.
    private static func tooLargeError(_ path: String, size: Int64) -> DownloadError {
        DownloadError(
            .disk, "\(path) cannot be \(size) bytes long: the file size limit (ulimit -f) or the filesystem's is smaller",
            path: path)
    }

    /// Deletes the file's name (before `close`) if the name is still this file's: a file made
    /// under it since keeps it.
    func removeIfStillNamed() {
        guard isNamed else { return }
        var own = stat()
        var named = stat()
        NameChangeLock.shared.withLock {
            guard fstat(descriptor, &own) == 0, lstat(path, &named) == 0, own.st_dev == named.st_dev,
                own.st_ino == named.st_ino
            else { return }
            _ = unlink(path)
        }
    }

    /// Deletes the file (after `close`): its name, if it has one.
    func remove() {
        guard isNamed else { return }
        NameChangeLock.shared.withLock { _ = unlink(path) }
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Makes the file `destination` (renamed, or linked there if unnamed), refusing to replace an
    /// existing file unless `overwrite` (in one step where the filesystem can: a file that
    /// appears meanwhile is never replaced; the download then stays in its `.part` file).
    func rename(to destination: String, overwrite: Bool) throws(DownloadError) {
        // What appeared at the name since the download began is never replaced if it is not a
        // file (a device, a pipe): the download stays in its `.part` file.
        if overwrite, let kind = FileSystem.specialKind(destination) {
            try name()
            var error = DownloadDestination.notRegularError(destination, kind)
            error.resumableFile = path
            throw error
        }
        if !isNamed {
            if link(as: destination) == 0 { return }
            guard errno == EEXIST else {
                throw DownloadError(.disk, "cannot create \(destination): \(FileSystem.lastError)", path: destination)
            }
            // Taken: the download stays in its `.part` file, which replaces the file if allowed.
            try name()
            guard overwrite else { throw existsError(destination) }
        }
        if !overwrite {
            let renamed = NameChangeLock.shared.withLock {
                renameat2(AT_FDCWD, path, AT_FDCWD, destination, UInt32(SLIPSTREAM_RENAME_NOREPLACE)) == 0
            }
            if renamed { return }
            guard errno == EINVAL || errno == ENOSYS || errno == EEXIST else { throw renameError(to: destination) }
            if errno == EEXIST || FileSystem.exists(destination) { throw existsError(destination) }
        }
        guard NameChangeLock.shared.withLock({ Glibc.rename(path, destination) }) == 0 else {
            throw renameError(to: destination)
        }
    }

    private func existsError(_ destination: String) -> DownloadError {
        var error = DownloadError(.exists, "\(destination) already exists (the download stays in \(path))", path: destination)
        error.resumableFile = path
        return error
    }

    private func renameError(to destination: String) -> DownloadError {
        DownloadError(.disk, "cannot rename \(path) to \(destination): \(FileSystem.lastError)", path: path)
    }
}
