#if canImport(Glibc)
import Glibc
#endif
import SlipstreamHTTP
import Synchronization

/// Reads keys from standard input on its own thread and hands them to `handler` until
/// `stop()`; polls so that it notices `stop()` within 0.1 s.
final class KeyReader: Sendable {
    private let stopped = Atomic<Bool>(false)

    init(handler: @escaping @Sendable (PlayerKey) -> Void) {
        IOThread.start(name: "slipstream-keys") { [self] in
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 64)
            while !self.stopped.load(ordering: .relaxed) {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count <= 0 { return }
                for key in decoder.feed(buffer[..<count]) { handler(key) }
            }
        }
    }

    /// Stops reading.
    func stop() { stopped.store(true, ordering: .relaxed) }
}
