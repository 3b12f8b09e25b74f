#if canImport(Glibc)
import Glibc
#endif
import SlipstreamDownload
import Synchronization

/// `play --save FILE`: writes the original bytes at their offsets as they arrive (on the
/// network thread) and remembers which parts of the stream it holds, so it can say at the end
/// whether the copy is whole.
final class SaveFile: Sendable {
    private struct State {
        var held = ByteRanges()
        var error: String?
    }

    let path: String
    private let descriptor: Int32
    private let state = Mutex(State())

    /// Creates (or empties) the file.
    init(path: String) throws(CommandError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandError(status: .disk, message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// Writes `bytes` at `offset`; the first failure is kept and later bytes are dropped.
    func write(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        guard state.withLock({ $0.error == nil }) else { return }
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                let message = "cannot write \(path): \(String(cString: strerror(errno)))"
                state.withLock { $0.error = message }
                return
            }
            done += count
        }
        state.withLock { $0.held.insert(offset..<offset + Int64(bytes.count)) }
    }

    /// Whether the file holds one run of bytes from 0 (all of the stream, when it was played to
    /// the end), the bytes it holds, and the write error if there was one.
    var summary: (whole: Bool, bytes: Int64, error: String?) {
        state.withLock { state in
            (state.held.ranges.count == 1 && state.held.ranges[0].lowerBound == 0, state.held.byteCount, state.error)
        }
    }
}
