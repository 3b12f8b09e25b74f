import Dispatch
import Synchronization

/// The packet queue as the network and playback sides share it: the one object both touch, each
/// call one short hold of its lock (nothing is parsed, decoded or played under it). It also
/// wakes the playback thread when there is news for it.
final class SharedPacketQueue: Sendable {
    private let queue: Mutex<PacketQueue>
    /// Wakes the playback thread: new packets, a flush, the end, or a command in its mailbox.
    private let wake = DispatchSemaphore(value: 0)

    /// An empty queue holding at most `limit` of unplayed audio, letting its producer go on
    /// below `resumeFraction` of it.
    init(limit: AudioStreamerConfiguration.BufferLimit, resumeFraction: Double) {
        queue = Mutex(PacketQueue(limit: limit, resumeFraction: resumeFraction))
    }

    /// Runs `body` on the queue under its lock (keep it short: no parsing, decoding or I/O).
    func withLock<R: Sendable, E: Error>(_ body: (inout PacketQueue) throws(E) -> R) throws(E) -> R {
        try queue.withLock { queue throws(E) -> R in try body(&queue) }
    }

    /// Wakes the playback thread.
    func wakeConsumer() {
        wake.signal()
    }

    /// Blocks the playback thread until woken, or for at most `seconds` (nil: until woken).
    func waitForNews(seconds: Double?) {
        _ = wake.wait(timeout: seconds.map { .now() + $0 } ?? .distantFuture)
    }

    // MARK: Readings

    /// Seconds of audio queued and not yet played.
    var unplayedSeconds: Double { withLock { $0.unplayedSeconds } }

    /// The bytes received so far, and when the last one came (monotonic ns).
    var received: (bytes: Int64, lastByteTime: Int64) { withLock { ($0.bytesReceived, $0.lastByteTime) } }

    /// The playback position in nanoseconds.
    var position: Int64 { withLock { $0.position } }
}
