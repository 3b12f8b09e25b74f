import Dispatch
import Synchronization

/// `slipstream daemon`: one download queue driven by aria2's JSON-RPC, at `/jsonrpc` over HTTP
/// POST, GET (JSONP too) and WebSocket, with aria2's notifications on the WebSocket and a page
/// of its own at `/`. Its downloads survive restarts through the session file, written after
/// every change that matters and on a timer. A running download is served to players with
/// ranges at the path `slipstream.getStreamPath` gives (`/stream/GID/TOKEN/NAME`).
///
/// ```swift
/// var configuration = DownloadDaemon.Configuration(folder: "/srv/downloads")
/// configuration.secret = "s3cret"
/// let daemon = try DownloadDaemon(configuration: configuration)
/// await daemon.run()          // until `shutdown` (aria2.shutdown, or a signal's handler)
/// ```
public final class DownloadDaemon: Sendable {
    /// How the daemon runs. Every setting has a documented default.
    public struct Configuration: Sendable {
        /// Where downloads go; a request's `dir` may only name a folder inside it.
        public var folder: String
        /// The RPC secret (aria2's `--rpc-secret`); nil for none, which only a daemon on
        /// loopback may have. Default nil.
        public var secret: String?
        /// The server: port (default 6800), loopback or every interface, allowed origins, bounds.
        public var server = WebServer.Configuration()
        /// The queue: downloads at once, connections, the default download settings.
        public var queue = DownloadQueue.Configuration()
        /// aria2's global options (limits, the defaults of new downloads).
        public var global = Aria2GlobalOptions()
        /// The session file (aria2's `--save-session`); nil for none. Default nil.
        public var sessionPath: String?
        /// How often the session is also written while downloads run (aria2's
        /// `--save-session-interval`); nil: only on changes. Default 60 s.
        public var sessionInterval: Duration? = .seconds(60)

        /// A daemon whose downloads go into `folder`. Its queue limits connections to one
        /// host over all downloads to 1,024 (aria2 limits only each download's, with
        /// `max-connection-per-server`), so that `-j 100` runs 100 downloads from one server.
        public init(folder: String) {
            self.folder = folder
            queue.connectionsPerHost = 1024
        }
    }

    /// The settings.
    public let configuration: Configuration
    /// The downloads.
    public let queue: DownloadQueue
    let service: Aria2Service
    private let server: WebServer
    /// The server, for the service's notifications (set once the server is made).
    private let listeners = Listeners()

    /// Where the service's notifications go: the server, once it is made.
    private final class Listeners: Sendable {
        let server = Mutex<WebServer?>(nil)

        func broadcast(_ text: [UInt8]) { server.withLock { $0 }?.broadcast(text) }
    }
    private let stopping = StopSignal()
    /// Answers calls one at a time, off the server's thread and the Swift concurrency pool.
    private let calls = DispatchQueue(label: "slipstream.daemon.rpc")
    /// Writes the session file, one write at a time.
    private let sessionWriter: SessionWriter?

    /// A daemon with `configuration`, listening at once; throws when the folder is missing,
    /// the secret is missing where it must not be, or the port cannot be had.
    public init(configuration: Configuration) throws(DaemonError) {
        self.configuration = configuration
        if configuration.server.listenAll, configuration.secret?.isEmpty ?? true {
            throw DaemonError(
                .insecure, "listening on every interface needs a secret: give --rpc-secret (or listen on loopback only)")
        }
        let folder: DownloadFolder
        do {
            folder = try DownloadFolder(configuration.folder)
        } catch {
            throw DaemonError(.folder, error.kind.message)
        }
        var queueConfiguration = configuration.queue
        queueConfiguration.maxConcurrentDownloads = configuration.global.maxConcurrentDownloads
        queueConfiguration.sessionPath = nil
        let queue = DownloadQueue(configuration: queueConfiguration)
        if configuration.global.maxOverallDownloadLimit > 0 {
            queue.setBytesPerSecondLimit(configuration.global.maxOverallDownloadLimit)
        }
        self.queue = queue
        let writer = configuration.sessionPath.map { SessionWriter(path: $0) }
        sessionWriter = writer
        let stopping = stopping
        service = Aria2Service(
            queue: queue, folder: folder, secret: configuration.secret, global: configuration.global,
            actions: .init(
                saveSession: { () throws(RPCFailure.Kind) in
                    guard let writer else { throw .failed("no session file was given (--save-session)") }
                    do throws(DownloadError) {
                        try writer.writeNow()
                    } catch {
                        throw .failed(error.message)
                    }
                },
                shutdown: { _ in stopping.raise() }, changed: { writer?.changed() },
                notify: { [listeners] in listeners.broadcast($0) }))
        writer?.source = { [service] in service.session() }
        var serverConfiguration = configuration.server
        serverConfiguration.files = Self.pageFiles
        let service = service
        let calls = calls
        do {
            let streamPath = serverConfiguration.streamPath
            server = try WebServer(
                configuration: serverConfiguration,
                streams: { path in calls.sync { service.openStream(path, prefix: streamPath) } }
            ) { request, reply in
                calls.async { reply(DaemonRequests.answer(request, service: service)) }
            }
            listeners.server.withLock { [server] in $0 = server }
            // The queue's starts and ends, from before any call can add a download, handed to
            // the call queue (never a task: a busy pool would hold them back), where a download
            // added by a call has its GID before any event of it is looked at.
            let writer = sessionWriter
            queue.observe { [server] event in
                guard event.concernsTheDaemon else { return }
                calls.async {
                    writer?.changed()
                    guard let notification = service.notification(for: event) else { return }
                    server.broadcast(notification)
                }
            }
        } catch {
            throw DaemonError(.listen, error.message, underlying: error)
        }
    }

    /// The port it listens on.
    public var port: Int { server.port }

    /// Reads a session or aria2 input file (`-i`): its URIs, and aria2's options for each.
    public static func readList(_ path: String) throws(DaemonError) -> DownloadList {
        do {
            return try SessionFile.read(path, keeping: Aria2Options.sessionKeys)
        } catch {
            throw DaemonError(.input, error.message, underlying: error)
        }
    }

    /// Adds the downloads of a session or aria2 input file (`-i`), each with its GID and
    /// options; returns the problems of the entries that could not be added.
    public func restore(_ list: DownloadList) -> [String] {
        calls.sync { service.restore(list) }
    }

    /// Serves until `shutdown()`, aria2's `shutdown` method or the cancellation of the calling
    /// task: tells aria2's notifications,
    /// keeps the session file, then stops every download (keeping its `.part` file), writes
    /// the session a last time and closes the server.
    public func run() async {
        let ticker = Task { [sessionWriter, configuration] in
            guard let sessionWriter, let interval = configuration.sessionInterval else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                sessionWriter.changed()
            }
        }
        sessionWriter?.changed()
        await withTaskCancellationHandler {
            await stopping.wait()
        } onCancel: { [stopping] in
            stopping.raise()
        }
        ticker.cancel()
        // The answer to aria2.shutdown (a few hundred bytes on its way to the server's thread)
        // is given a moment to leave before the server closes.
        try? await Task.sleep(for: .milliseconds(200))
        await queue.stopAll()
        try? sessionWriter?.writeNow()
        server.close()
    }

    /// Stops the daemon: `run` returns once every download has stopped and the session is
    /// written. From any thread, any number of times.
    public func shutdown() {
        stopping.raise()
    }

    /// The page's files, as the server serves them.
    static let pageFiles: [String: WebServer.File] = Dictionary(
        uniqueKeysWithValues: DaemonPage.files.map { ($0.path, WebServer.File(contentType: $0.contentType, bytes: Array($0.text.utf8))) })
}
