import Foundation
import Synchronization

/// A real Icecast 2.4 (Debian's icecast2, `scripts/icecast.sh`) for the live-stream tests: the
/// one every test shares (`shared()`), or one of a test's own that it can stop and start again
/// (`startPrivate()`), for drops of the whole server. Sources are started on it with
/// `startSource` (ffmpeg) or `startPlaylistSource` (ezstream), titles set with `setTitle`, and
/// its mounts listened to with `IcyListener` or any client at `url(mount)`.
///
/// Tests run in parallel: each uses mounts of its own (`uniqueMount`). Every call that waits
/// does so on a thread of its own, never on the Swift concurrency pool.
public final class TestIcecast: Sendable {
    /// What a mount does beyond Icecast's defaults; set by the folder the mount is in (see
    /// scripts/icecast.xml.in).
    public enum MountSettings: Sendable {
        /// Icecast's defaults: a metadata block every 16000 bytes; a title set with a charset
        /// is converted to ISO-8859-1 (see `setTitle`).
        case plain
        /// A metadata block every `tinyMetadataInterval` (7) bytes: blocks split across reads.
        case tinyMetadataInterval
        /// A title set with a charset is converted to UTF-8.
        case utf8Titles

        var folder: String {
            switch self {
            case .plain: ""
            case .tinyMetadataInterval: "/tiny-metaint"
            case .utf8Titles: "/utf8-metadata"
            }
        }
    }

    /// Why a call on the server failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The server's loopback port.
    public let port: Int
    /// The password of user `source`.
    public let sourcePassword: String
    /// The admin API's user and password.
    public let adminUser: String
    public let adminPassword: String
    /// The metadata interval (bytes) of the `.tinyMetadataInterval` mounts.
    public let tinyMetadataInterval: Int
    /// A private server's service (`scripts/test-service.sh icecast`), which takes `stop` and
    /// `start`; nil for the shared server.
    private let service: Mutex<TestServices.Launched?>

    private init(_ server: TestServices.Icecast, service: sending TestServices.Launched?) {
        port = server.port
        sourcePassword = server.sourcePassword
        adminUser = server.adminUser
        adminPassword = server.adminPassword
        tinyMetadataInterval = server.tinyMetadataInterval
        self.service = Mutex(service)
    }

    /// A private server stops when it goes.
    deinit {
        service.withLock { try? $0?.input.close() }
    }

    private static let sharedServer = Result { () throws(TestServices.Unavailable) in
        TestIcecast(try TestServices.icecast(), service: nil)
    }

    /// The server every test shares: the one `scripts/test.sh` started, else one started for
    /// this test process. It is never stopped: use `startPrivate()` to drop a whole server.
    public static func shared() throws -> TestIcecast {
        try sharedServer.get()
    }

    /// A server of the caller's own, on a port of its own, that `stopServer()` and
    /// `startServer()` stop and start again; it stops when the returned object goes (or the
    /// test process ends).
    public static func startPrivate() async throws -> TestIcecast {
        try await offPool {
            let launched = try TestServices.launch(["icecast"]).get()
            guard let server = TestServices.Icecast(launched.values) else {
                throw Failure(description: "scripts/test-service.sh icecast printed \(launched.values)")
            }
            return TestIcecast(server, service: launched)
        }
    }

    /// Stops a private server: every source and listener is dropped. Its port stays its own
    /// until `startServer()`.
    public func stopServer() async throws { try await command("stop") }

    /// Starts a stopped private server again, on the same port with the same passwords; no
    /// mount is live until a source connects again.
    public func startServer() async throws { try await command("start") }

    private func command(_ command: String) async throws {
        try await offPool { [self] in
            try service.withLock { service throws in
                guard let service else { throw Failure(description: "the shared Icecast is never stopped: use TestIcecast.startPrivate()") }
                try service.input.write(contentsOf: Data((command + "\n").utf8))
                var answer = Data()
                // A stop or start takes seconds (a hung Icecast is killed 10 s after SIGTERM).
                let deadline = Date().addingTimeInterval(60)
                while answer.last != UInt8(ascii: "\n") {
                    var ready = pollfd(fd: service.output.fileDescriptor, events: Int16(POLLIN), revents: 0)
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0, poll(&ready, 1, Int32(left * 1000)) > 0 else {
                        throw Failure(description: "Icecast did not answer `\(command)` within 60 s")
                    }
                    let data = service.output.availableData
                    guard !data.isEmpty else { throw Failure(description: "the Icecast service ended") }
                    answer += data
                }
                guard answer == Data("ok\n".utf8) else { throw Failure(description: "Icecast did not \(command); its messages are above") }
            }
        }
    }

    private static let mounts = Atomic(0)

    /// A mount no other test uses: `/[FOLDER/]NAME-PID-N.EXTENSION`, in the folder that gives
    /// it `settings`.
    public static func uniqueMount(_ name: String, _ settings: MountSettings = .plain, extension: String = "mp3") -> String {
        let number = mounts.add(1, ordering: .relaxed).newValue
        return "\(settings.folder)/\(name)-\(getpid())-\(number).\(`extension`)"
    }

    /// `http://127.0.0.1:PORT/MOUNT`.
    public func url(_ mount: String) -> String {
        "http://127.0.0.1:\(port)\(mount)"
    }

    /// Sets the title of `mount`'s live source through the admin API
    /// (`/admin/metadata?mode=updinfo&song=...`): listeners get it in their next metadata
    /// block (those that connect later first get the older blocks Icecast keeps for a new
    /// listener). As Icecast 2.4.4 does it on an MP3 mount: with no `charset`, the title's
    /// bytes (here UTF-8) go on the wire as they are; with a `charset` (e.g. "UTF-8"), they are
    /// converted from it to the mount's charset: ISO-8859-1 (characters it lacks become
    /// `&#NNNN;`), or UTF-8 for `.utf8Titles` mounts.
    public func setTitle(_ title: String, on mount: String, charset: String? = nil) async throws {
        try await setTitle(bytes: Array(title.utf8), on: mount, charset: charset)
    }

    /// `setTitle` with the title's bytes as they are (e.g. ISO-8859-1 or Windows-1252 text).
    public func setTitle(bytes: [UInt8], on mount: String, charset: String? = nil) async throws {
        let query =
            "mount=\(Self.percentEncoded(Array(mount.utf8)))&mode=updinfo&song=\(Self.percentEncoded(bytes))"
            + (charset.map { "&charset=\(Self.percentEncoded(Array($0.utf8)))" } ?? "")
        let answer = try await offPool { [self] in try admin("/admin/metadata?" + query) }
        guard answer.contains("<return>1</return>") else { throw Failure(description: "setting the title of \(mount): \(answer)") }
    }

    /// The number of listeners of `mount` now; nil when it has no live source.
    public func listeners(on mount: String) async throws -> Int? {
        try await offPool { [self] in try listenerCount(mount) }
    }

    /// Waits until `mount` has at least `count` listeners (a player has connected, say);
    /// throws after `timeoutSeconds`.
    public func waitForListeners(on mount: String, count: Int = 1, timeoutSeconds: Double = 60) async throws {
        try await wait(for: mount, timeoutSeconds: timeoutSeconds, givingUp: { false }) { ($0 ?? 0) >= count }
    }

    /// Waits until `mount` has a live source; throws after `timeoutSeconds`, or as soon as
    /// `givingUp()` is true.
    func waitUntilLive(_ mount: String, timeoutSeconds: Double = 60, givingUp: @escaping @Sendable () -> Bool) async throws {
        try await wait(for: mount, timeoutSeconds: timeoutSeconds, givingUp: givingUp) { $0 != nil }
    }

    /// Looks at `mount`'s listener count every 50 ms, on a thread of its own, until
    /// `condition` holds.
    private func wait(
        for mount: String, timeoutSeconds: Double, givingUp: @escaping @Sendable () -> Bool,
        until condition: @escaping @Sendable (Int?) -> Bool
    ) async throws {
        try await offPool { [self] in
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while try !condition(listenerCount(mount)) {
                guard !givingUp() else { throw Failure(description: "the source of \(mount) ended; its messages are above") }
                guard Date() < deadline else { throw Failure(description: "waited \(timeoutSeconds) s for \(mount) in vain") }
                usleep(50_000)
            }
        }
    }

    /// `mount`'s listeners as `/admin/listmounts` counts them; nil when it is not there. Blocks.
    private func listenerCount(_ mount: String) throws -> Int? {
        let list = try admin("/admin/listmounts")
        guard let entry = list.range(of: "<source mount=\"\(mount)\">") else { return nil }
        let rest = list[entry.upperBound...]
        let end = rest.range(of: "</source>")?.lowerBound ?? rest.endIndex
        guard let open = rest[..<end].range(of: "<listeners>"), let close = rest[open.upperBound..<end].range(of: "</listeners>")
        else { return nil }
        return Int(rest[open.upperBound..<close.lowerBound])
    }

    /// The body of admin API request `pathAndQuery`, sent with the admin's credentials. Blocks.
    private func admin(_ pathAndQuery: String) throws -> String {
        let credentials = Data("\(adminUser):\(adminPassword)".utf8).base64EncodedString()
        let connection = try LoopbackConnection(port: port, path: pathAndQuery, headers: ["Authorization": "Basic \(credentials)"])
        let body = String(decoding: try connection.readToEnd(), as: UTF8.self)
        guard connection.status == 200 else {
            throw Failure(description: "\(pathAndQuery): \(connection.head.first ?? "no answer") \(body)")
        }
        return body
    }

    /// `bytes` with every byte but the unreserved ones (RFC 3986) as %XX.
    private static func percentEncoded(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }
}
