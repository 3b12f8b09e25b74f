import CWebSockets
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The state of a `WebServer` on its thread: every libwebsockets callback comes here, on the
/// one thread that runs `lws_service`, and only that thread touches the connections. Other
/// threads reach it through `inbox` alone (replies, broadcasts, stop), then wake it.
final class ServerLoop: @unchecked Sendable {
    /// Shared with every thread (under its mutex).
    let inbox = Mutex(ServerInbox())
    let configuration: WebServer.Configuration
    let handler: WebServer.Handler
    /// Finds streamed files; nil: none are served.
    let streams: WebServer.StreamOpener?
    /// Set before the thread starts (it needs the port bound).
    var policy: RequestPolicy

    // The server thread's alone from here on.
    var connections: [OpaquePointer: ServerConnection] = [:]
    var wsiByID: [UInt64: OpaquePointer] = [:]
    var webSockets: Set<OpaquePointer> = []
    /// Accepted connections not yet destroyed (what `maxConnections` bounds).
    var accepted: Set<OpaquePointer> = []
    private var nextID: UInt64 = 1

    /// The thread serving (its `pthread_self`), 0 before it starts.
    let thread = Atomic<UInt>(0)

    init(configuration: WebServer.Configuration, streams: WebServer.StreamOpener?, handler: @escaping WebServer.Handler) {
        self.configuration = configuration
        self.streams = streams
        self.handler = handler
        policy = RequestPolicy(
            port: configuration.port, listenAll: configuration.listenAll, allowedOrigins: configuration.allowedOrigins,
            allowAnyOrigin: configuration.allowAnyOrigin)
    }

    /// Serves until asked to stop, then destroys the context (closing every connection).
    func run(_ server: UnsafeMutablePointer<slipstream_lws_server>) {
        let context = server.pointee.context
        thread.store(UInt(pthread_self()), ordering: .releasing)
        while !inbox.withLock({ $0.stopping }) {
            if slipstream_lws_service(context, 0) < 0 { break }
        }
        inbox.withLock { $0.context = nil }
        slipstream_lws_server_free(server)
        for connection in connections.values { connection.pump?.close() }
        connections.removeAll()
        wsiByID.removeAll()
        webSockets.removeAll()
    }

    /// The connection of `wsi`, made on first use.
    func connection(_ wsi: OpaquePointer) -> ServerConnection {
        if let connection = connections[wsi] { return connection }
        let connection = ServerConnection(id: nextID)
        nextID += 1
        connections[wsi] = connection
        wsiByID[connection.id] = wsi
        return connection
    }

    /// Forgets `wsi` (closed): the thread of its streamed file, if any, stops.
    func forget(_ wsi: OpaquePointer) {
        if let connection = connections.removeValue(forKey: wsi) {
            wsiByID[connection.id] = nil
            connection.pump?.close()
        }
        webSockets.remove(wsi)
    }

    /// Closes `wsi` on the next turn. A client that does not read may never be writable again,
    /// and libwebsockets would wait to flush what it holds before closing: the socket is shut
    /// first, so that the flush fails at once.
    func closeSoon(_ wsi: OpaquePointer) {
        let socket = slipstream_lws_get_socket_fd(wsi)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        slipstream_lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, slipstream_lws_kill_async)
    }

    /// The function handed to `reply` for the connection's latest request: queues the reply
    /// (the first one only) and wakes the thread.
    func replier(for connection: ServerConnection) -> @Sendable (WebServer.Reply) -> Void {
        let id = connection.id, request = connection.requests
        let replied = Atomic(false)
        return { [self] reply in
            guard !replied.exchange(true, ordering: .relaxed) else { return }
            inbox.withLock {
                guard !$0.stopping else { return }
                $0.replies.append((id, request, reply))
                $0.wake()
            }
        }
    }

    /// Takes what other threads queued: replies and streamed pieces go to their connections,
    /// broadcasts to every WebSocket.
    func drainInbox() {
        let (replies, broadcasts, streamEvents) = inbox.withLock { inbox in
            defer {
                inbox.replies.removeAll()
                inbox.broadcasts.removeAll()
                inbox.streamEvents.removeAll()
            }
            return (inbox.replies, inbox.broadcasts, inbox.streamEvents)
        }
        for (id, request, event) in streamEvents {
            guard let wsi = wsiByID[id], let connection = connections[wsi], connection.pump != nil, request == connection.requests
            else { continue }
            deliver(event, wsi, connection)
        }
        for (id, request, reply) in replies {
            guard let wsi = wsiByID[id], let connection = connections[wsi] else { continue }
            switch connection.phase {
            case .awaitingReply where request == connection.requests:
                respond(wsi, connection, status: reply.status, contentType: reply.contentType, body: reply.body)
            case .webSocket:
                if !reply.body.isEmpty { send(reply.body, to: wsi, connection) }
            default:
                continue
            }
        }
        for text in broadcasts {
            for wsi in webSockets {
                guard let connection = connections[wsi] else { continue }
                send(text, to: wsi, connection)
            }
        }
    }

    /// One libwebsockets callback: 0 to go on, nonzero to close the connection.
    func callback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return admits(socket: Int32(truncatingIfNeeded: Int(bitPattern: input))) ? 0 : 1
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            accepted.insert(wsi)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            accepted.remove(wsi)
            forget(wsi)
            return 0
        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_CLOSED:
            forget(wsi)
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainInbox()
            return 0
        case LWS_CALLBACK_HTTP:
            return httpRequest(wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")
        case LWS_CALLBACK_HTTP_BODY:
            return httpBody(wsi, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyComplete(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return writeResponse(wsi)
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi, to: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "")
        case LWS_CALLBACK_ESTABLISHED:
            return webSocketOpened(wsi)
        case LWS_CALLBACK_RECEIVE:
            return webSocketReceived(wsi, UnsafeRawBufferPointer(start: input, count: length))
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return webSocketWritable(wsi)
        case LWS_CALLBACK_TIMER:
            return streamTimer(wsi)
        default:
            return 0
        }
    }

    /// Whether to take a new connection on `socket`: loopback peers only unless listening on
    /// every interface, and no more than `maxConnections` at once.
    private func admits(socket: Int32) -> Bool {
        // The filter and the connection's creation run in one go on this thread: `accepted`
        // counts every connection let in before.
        guard accepted.count < configuration.maxConnections else { return false }
        return configuration.listenAll || Self.peerIsLoopback(socket)
    }

    /// Whether the peer of `socket` is a loopback address (127/8, ::1, or 127/8 mapped into IPv6).
    static func peerIsLoopback(_ socket: Int32) -> Bool {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &size) }
        }
        guard got == 0 else { return false }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 4, as: UInt8.self) == 127 }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                let address = Array(raw[8..<24])
                let loopback = address[0..<15].allSatisfy { $0 == 0 } && address[15] == 1
                let mapped = address[0..<10].allSatisfy { $0 == 0 } && address[10] == 0xFF && address[11] == 0xFF && address[12] == 127
                return loopback || mapped
            }
        default:
            return false
        }
    }
}
