import CWebSockets
import Dispatch
import SlipstreamCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's HTTP and WebSocket server, on libwebsockets (loaded on first use): the RPC path
/// (POST, GET with a query, WebSocket text messages) goes to a handler, static files are served
/// by path, anything else is refused. Secure by default: loopback only, its own `Host` only,
/// pages of other origins refused before anything runs (simple POSTs included), and every
/// body, message, connection count, idle time and outgoing queue bounded; a bad request or
/// frame closes its connection only.
///
/// One thread of its own runs libwebsockets and calls the handler; the other threads only
/// queue replies and broadcasts and wake it.
public final class WebServer: Sendable {
    /// The port listened on (the one chosen, when the configuration asked for 0).
    public let port: Int
    private let loop: ServerLoop
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts serving `configuration` with `handler`, and the streamed files `streams` finds
    /// (none when nil); throws when libwebsockets is missing or not 4.1.x (`.library`), the
    /// port cannot be listened on (`.listen`), or a setting is out of range (`.configuration`).
    public init(configuration: Configuration, streams: StreamOpener? = nil, handler: @escaping Handler) throws(WebServerError) {
        try Self.check(configuration)
        guard slipstream_lws_installed() != 0 else {
            throw WebServerError(.library, "libwebsockets (libwebsockets.so.17) is not installed")
        }
        guard slipstream_lws_version_ok() != 0 else {
            let version = slipstream_lws_version().map { String(cString: $0) } ?? "of an unknown version"
            throw WebServerError(.library, "libwebsockets \(version) is installed; the server needs 4.1.x")
        }
        let loop = ServerLoop(configuration: configuration, streams: streams, handler: handler)
        var settings = slipstream_lws_settings(
            port: Int32(configuration.port), listen_all: configuration.listenAll ? 1 : 0, idle_seconds: UInt32(configuration.idleSeconds),
            max_header_bytes: 8192, max_header_pool: UInt16(clamping: configuration.maxConnections),
            callback: { wsi, reason, _, input, length in
                guard let wsi, let context = slipstream_lws_get_context(wsi), let user = slipstream_lws_context_user(context)
                else { return 0 }
                return Unmanaged<ServerLoop>.fromOpaque(user).takeUnretainedValue().callback(wsi, reason, input, length)
            }, user: Unmanaged.passUnretained(loop).toOpaque())
        guard let server = slipstream_lws_server_new(&settings) else {
            throw WebServerError(.listen, Self.listenFailure(configuration))
        }
        port = Int(slipstream_lws_server_port(server))
        loop.policy.port = port
        self.loop = loop
        let context = ServerInbox.Context(pointer: server.pointee.context)
        loop.inbox.withLock { $0.context = context }
        let handle = ServerHandle(server: server)
        IOThread.start(name: "slipstream-web") { [loop, stopped] in
            loop.run(handle.server)
            stopped.signal()
        }
    }

    deinit { close() }

    /// Sends `text` as one text frame to every open WebSocket (from any thread). A client that
    /// lags by more than `maxQueuedBytesPerClient` is closed instead.
    public func broadcast(_ text: [UInt8]) {
        loop.inbox.withLock {
            guard !$0.stopping else { return }
            $0.broadcasts.append(text)
            $0.wake()
        }
    }

    /// Stops serving, closing every connection; returns once the server's thread has ended
    /// (later calls too), but for a call from the handler: on the server's thread, it returns at
    /// once, and the thread ends after the handler returns.
    public func close() {
        loop.inbox.withLock { inbox in
            guard !inbox.stopping else { return }
            inbox.stopping = true
            inbox.wake()
        }
        if loop.thread.load(ordering: .acquiring) != UInt(pthread_self()) {
            // Signalled once when the thread ends; each waiter passes it on to the next.
            stopped.wait()
            stopped.signal()
        }
    }

    private static func check(_ configuration: Configuration) throws(WebServerError) {
        guard (0...65535).contains(configuration.port) else {
            throw WebServerError(.configuration, "port \(configuration.port) is not between 0 and 65535")
        }
        guard configuration.maxBodyBytes >= 1, configuration.maxConnections >= 1, configuration.maxQueuedBytesPerClient >= 1,
            configuration.maxStreams >= 1, configuration.streamPieceBytes >= 1
        else {
            throw WebServerError(.configuration, "the server's limits must be at least 1")
        }
        guard configuration.rpcPath.hasPrefix("/") else {
            throw WebServerError(.configuration, "the RPC path '\(configuration.rpcPath)' does not start with /")
        }
        guard configuration.streamPath.hasPrefix("/"), configuration.streamPath.hasSuffix("/") else {
            throw WebServerError(.configuration, "the stream path '\(configuration.streamPath)' does not start and end with /")
        }
    }

    /// Why listening failed: the port is in use, or cannot be bound for another reason.
    private static func listenFailure(_ configuration: Configuration) -> String {
        let address = configuration.listenAll ? "every interface" : "127.0.0.1"
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { if socket >= 0 { Glibc.close(socket) } }
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var probe = sockaddr_in()
        probe.sin_family = sa_family_t(AF_INET)
        probe.sin_port = in_port_t(UInt16(configuration.port).bigEndian)
        probe.sin_addr.s_addr = in_addr_t(configuration.listenAll ? 0 : UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &probe) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound != 0, errno == EADDRINUSE {
            return "port \(configuration.port) of \(address) is in use"
        }
        return "cannot listen on port \(configuration.port) of \(address)"
    }
}

/// The libwebsockets server, handed to the server's thread (which alone uses and frees it).
private struct ServerHandle: @unchecked Sendable {
    let server: UnsafeMutablePointer<slipstream_lws_server>
}
