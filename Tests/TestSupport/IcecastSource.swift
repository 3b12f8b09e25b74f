import Foundation
import Synchronization

/// A source streaming to a `TestIcecast` mount (ffmpeg or ezstream, run by
/// `scripts/test-service.sh source`, which stops it when its standard input closes: when
/// `stop()` is called, when this object goes, or when the test process ends).
public final class IcecastSource: Sendable {
    /// The mount it streams to, and its URL.
    public let mount: String
    public let url: String
    /// The source's service; nil once stopped.
    private let launched: Mutex<TestServices.Launched?>
    /// A folder of its own (ezstream's configuration and playlist), removed when it stops.
    private let folder: String?

    init(mount: String, url: String, launched: sending TestServices.Launched, folder: String?) {
        self.mount = mount
        self.url = url
        self.launched = Mutex(launched)
        self.folder = folder
    }

    deinit {
        launched.withLock { try? $0?.input.close() }
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Whether the source still runs (it ends by itself when Icecast drops it).
    public var isRunning: Bool {
        launched.withLock { $0?.process.isRunning ?? false }
    }

    /// Stops the source and waits until it has ended: Icecast then ends the mount, and every
    /// listener's stream ends (a drop, as a listener sees it).
    public func stop() async {
        guard let service = launched.withLock({ $0.take() }) else { return }
        try? service.input.close()
        _ = try? await offPool { service.process.waitUntilExit() }
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}
