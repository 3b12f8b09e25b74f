import Glibc

/// A finished download's file, served with ranges: read with `pread` on the request's thread.
final class FileStream: WebServer.StreamSource {
    let contentType: String
    private let descriptor: Int32

    /// The file at `path`, opened for reading; nil when it cannot be (gone, a symbolic link).
    init?(path: String, contentType: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.contentType = contentType
    }

    deinit { Glibc.close(descriptor) }

    func size() -> Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    /// Nothing waits: the descriptor is closed with the stream (never under a read).
    func close() {}
}
