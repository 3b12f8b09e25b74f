#if canImport(Glibc)
import Glibc
#endif

/// A local file, read with `pread` where it is asked.
struct FileInfoSource: InfoSource {
    /// The file, as given.
    private let path: String
    /// The file's name and size, and what has been read.
    private(set) var summary: InfoSourceSummary
    /// A file can be read anywhere.
    let canSeek = true

    /// Checks that `path` is a file that can be read and finds its size.
    init(path: String) throws(CommandError) {
        self.path = path
        var status = stat()
        guard stat(path, &status) == 0 else { throw Self.failure(path) }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw CommandError(status: .disk, message: "\(path): is a folder, not a file")
        }
        summary = InfoSourceSummary(file: path, size: status.st_mode & S_IFMT == S_IFREG ? Int64(status.st_size) : nil)
    }

    /// Opens the file, reads `count` bytes at `offset` (fewer at its end) and closes it.
    mutating func read(at offset: Int64, count: Int) async throws(CommandError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.failure(path) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Self.failure(path) }
            if got == 0 { break }
            done += got
        }
        bytes.removeLast(count - done)
        summary.bytesRead += Int64(done)
        summary.requests += 1
        return bytes
    }

    /// The error for the last failed call on `path`, e.g. `song.mp3: No such file or directory`.
    private static func failure(_ path: String) -> CommandError {
        CommandError(status: .disk, message: "\(path): \(String(cString: strerror(errno)))")
    }
}
