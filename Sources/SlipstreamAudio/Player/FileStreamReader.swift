import Dispatch
import Glibc
import SlipstreamHTTP
import Synchronization

/// Reads a local file from an offset on its own thread and hands the bytes to the player's feed
/// in 16 KiB slices, honouring `.pause` like an HTTP transfer does. Ranges are always honoured.
final class FileStreamReader: StreamConnection {
    private struct Control {
        var paused = false
        var cancelled = false
    }

    private let control = Mutex(Control())
    private let wake = DispatchSemaphore(value: 0)

    /// Starts reading `path` from `offset` for connection `generation`.
    init(path: String, offset: Int64, feed: any StreamFeed, generation: Int) {
        let reader = self
        IOThread.start { reader.run(path: path, offset: offset, feed: feed, generation: generation) }
    }

    func resume() {
        control.withLock { $0.paused = false }
        wake.signal()
    }

    func cancel() {
        control.withLock { $0.cancelled = true }
        wake.signal()
    }

    private func run(path: String, offset: Int64, feed: any StreamFeed, generation: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            feed.finish(AudioStreamerError(.file, "cannot open \(path): \(String(cString: strerror(errno)))"), generation: generation)
            return
        }
        defer { close(fd) }
        var info = stat()
        let size: Int64? = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        let answer = StreamAnswer(offset: offset, totalSize: size, rangesSupported: true, strongETag: nil, contentType: nil)
        if feed.accept(answer, generation: generation) != nil { return }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        var position = offset
        while true {
            if control.withLock({ $0.cancelled }) { return }
            let count = pread(fd, chunk.baseAddress, chunk.count, off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                feed.finish(AudioStreamerError(.file, "cannot read \(path) at byte \(position): \(String(cString: strerror(errno)))"), generation: generation)
                return
            }
            if count == 0 { break }
            while true {
                switch feed.consume(UnsafeRawBufferPointer(rebasing: chunk[0 ..< count]), generation: generation) {
                case .proceed:
                    position += Int64(count)
                case .pause:
                    control.withLock { $0.paused = true }
                    while control.withLock({ $0.paused && !$0.cancelled }) { wake.wait() }
                    if control.withLock({ $0.cancelled }) { return }
                    continue
                case .finish, .abort:
                    return
                }
                break
            }
        }
        feed.finish(nil, generation: generation)
    }
}
