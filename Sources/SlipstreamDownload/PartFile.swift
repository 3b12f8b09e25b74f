#if canImport(Glibc)
import Glibc
#endif
import CFileSystem

/// The `.part` file a download writes into: positioned writes from libcurl's buffers
/// straight to the file (no copy), preallocation, and the final rename. While open it holds an
/// exclusive lock (`flock`) on the file, so that two downloads (in this process or another)
/// never write one `.part`: the second gets a clear error instead.
final class PartFile: Sendable {
    let path: String
    let descriptor: Int32

    /// Opens `path` for a fresh download, emptied (an earlier run's file with no usable records
    /// is overwritten).
    convenience init(creating path: String) throws(DownloadError) {
        try self.init(path, flags: O_CREAT, verb: "create")
        // (Not a regular file, such as /dev/null: nothing to empty.)
        guard ftruncate(descriptor, 0) == 0 || errno == EINVAL else {
            Glibc.close(descriptor)
            throw DownloadError(.disk, "cannot empty \(path): \(FileSystem.lastError)")
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

    private init(_ path: String, flags: Int32, verb: String) throws(DownloadError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0o644)
        guard fd >= 0 else {
            throw DownloadError(.disk, "cannot \(verb) \(path): \(FileSystem.lastError)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = FileSystem.lastError
            Glibc.close(fd)
            throw busy ? DownloadError(.output, "\(path) is being written by another download")
                : DownloadError(.disk, "cannot lock \(path): \(reason)")
        }
        self.path = path
        descriptor = fd
    }

    /// Flushes the file's data to the disk (fdatasync).
    func synchronize() throws(DownloadError) {
        guard fdatasync(descriptor) == 0 else {
            throw DownloadError(.disk, "cannot sync \(path): \(FileSystem.lastError)")
        }
    }

    /// Makes the file `size` bytes long: allocated on disk when `allocate` (so a full disk is
    /// found before the download starts, and cannot stop it later), else sparse.
    func reserve(_ size: Int64, allocate: Bool) throws(DownloadError) {
        guard size > 0 else { return }
        guard allocate else {
            guard ftruncate(descriptor, off_t(size)) == 0 else {
                throw DownloadError(.disk, "cannot size \(path): \(FileSystem.lastError)")
            }
            return
        }
        let result = posix_fallocate(descriptor, 0, off_t(size))
        switch result {
        case 0:
            return
        case ENOSPC, EFBIG:
            throw DownloadError(.noSpace, "not enough space for \(path): it needs \(size) bytes, "
                + "\(FileSystem.freeBytes(near: path).map { "\($0) bytes are free" } ?? "the disk is full")")
        default:
            // Filesystems without preallocation: grow the file instead; a full disk then shows at write time.
            guard ftruncate(descriptor, off_t(size)) == 0 else {
                throw DownloadError(.disk, "cannot size \(path): \(FileSystem.lastError)")
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
                    throw DownloadError(.noSpace, "the disk is full writing \(path) at byte \(offset + Int64(done))")
                }
                throw DownloadError(.disk, "cannot write \(path) at byte \(offset + Int64(done)): \(String(cString: strerror(code)))")
            }
            done += count
        }
    }

    /// Deletes the file (after `close`).
    func remove() {
        unlink(path)
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Renames the file to `destination`, refusing to replace an existing file unless `overwrite`
    /// (in one step where the filesystem can: a file that appears meanwhile is never replaced).
    func rename(to destination: String, overwrite: Bool) throws(DownloadError) {
        if !overwrite {
            if renameat2(AT_FDCWD, path, AT_FDCWD, destination, UInt32(SLIPSTREAM_RENAME_NOREPLACE)) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS || errno == EEXIST else { throw renameError(to: destination) }
            if errno == EEXIST || FileSystem.exists(destination) {
                throw DownloadError(.output, "\(destination) already exists (the download stays in \(path)); use --force to replace it")
            }
        }
        guard Glibc.rename(path, destination) == 0 else { throw renameError(to: destination) }
    }

    private func renameError(to destination: String) -> DownloadError {
        DownloadError(.disk, "cannot rename \(path) to \(destination): \(FileSystem.lastError)")
    }
}
