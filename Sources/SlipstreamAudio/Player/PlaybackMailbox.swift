import Synchronization

/// Commands for the playback side, posted from any thread and taken by the playback thread
/// before each step (a seek's flush and the formats come in band, through the packet queue).
final class PlaybackMailbox: Sendable {
    /// A command for the playback side.
    enum Command: Hashable, Sendable {
        /// Play from the queue (true), or pause the output (false).
        case run(Bool)
        /// Software volume from 0 to 1.
        case volume(Double)
        /// Close the output and end the playback thread.
        case stop
    }

    private let commands = Mutex<[Command]>([])
    private let queue: SharedPacketQueue

    /// A mailbox whose posts wake the consumer of `queue` (the playback thread).
    init(queue: SharedPacketQueue) {
        self.queue = queue
    }

    /// Posts `command` and wakes the playback thread.
    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        queue.wakeConsumer()
    }

    /// Takes every command posted since the last call, oldest first (usually none).
    func take() -> [Command] {
        commands.withLock { commands in
            guard !commands.isEmpty else { return [] }
            defer { commands.removeAll() }
            return commands
        }
    }
}
