import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests that need faults nginx cannot produce:
/// a handler decides each response, and the response can lie, stall, close early or
/// stream without a length. One thread per connection; keep-alive supported.
public final class TestHTTPServer: Sendable {
    /// A parsed request.
    public struct Request: Sendable {
        /// `GET`, `HEAD`, ...
        public var method: String
        /// The path with any query, e.g. `/file?x=1`.
        public var path: String
        /// Header fields with lower-cased names (the last one wins).
        public var headers: [String: String]
        /// The parsed `Range: bytes=a-b` (b nil for `a-`), if any.
        public var range: (start: Int64, end: Int64?)? {
            guard let value = headers["range"], value.hasPrefix("bytes=") else { return nil }
            let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Int64(parts[0]) else { return nil }
            return (start, Int64(parts[1]))
        }
    }

    /// What to send back, and how.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Header fields; Content-Length is added unless `chunked`.
        public var headers: [(String, String)]
        /// The body.
        public var body: [UInt8]
        /// Send with `Transfer-Encoding: chunked` and no length.
        public var chunked = false
        /// Close the connection after this many body bytes.
        public var closeAfter: Int?
        /// Stop sending (but keep the connection open) after this many body bytes.
        public var stallAfter: Int?
        /// Pace the body at about this many bytes per second.
        public var bytesPerSecond: Int?
        /// After this many body bytes, wait while `gate` is closed (then carry on): lets a test
        /// hold a download at a known point, whatever the machine's speed.
        public var holdAfter: Int?
        /// The gate `holdAfter` waits on.
        public var gate: Gate?
        /// The status line in place of `HTTP/1.1 <status> ...` (an old SHOUTcast server's
        /// `ICY 200 OK`).
        public var statusLine: String?
        /// Send no Content-Length (and no chunking): the body ends when the connection closes.
        public var untilClose = false

        /// A response with the given parts.
        public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The honest answer for `content` to `request`: 206 with Content-Range for a
        /// satisfiable range (when an `If-Range` matches the ETag or Last-Modified, or there is
        /// none), 416 for an unsatisfiable one, else 200 with the whole content.
        public static func file(
            _ content: [UInt8], for request: Request, etag: String? = "\"v1\"",
            lastModified: String? = nil
        ) -> Response {
            var headers: [(String, String)] = [("Accept-Ranges", "bytes")]
            if let etag { headers.append(("ETag", etag)) }
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
            let size = Int64(content.count)
            if let condition = request.headers["if-range"], condition != etag, condition != lastModified {
                return Response(status: 200, headers: headers, body: content)
            }
            guard let range = request.range else {
                return Response(status: 200, headers: headers, body: content)
            }
            let end = min(range.end ?? (size - 1), size - 1)
            guard range.start < size, range.start <= end else {
                return Response(status: 416, headers: headers + [("Content-Range", "bytes */\(size)")])
            }
            headers.append(("Content-Range", "bytes \(range.start)-\(end)/\(size)"))
            return Response(status: 206, headers: headers, body: Array(content[Int(range.start)...Int(end)]))
        }
    }

    private struct State {
        var requests: [Request] = []
        var clients: Set<Int32> = []
        var bodyBytesSent = 0
        var stopped = false
        /// Connections with a response in progress, and the most there were at once.
        var inProgress: Set<Int32> = []
        var maxInProgress = 0
    }

    private let listener: Int32
    /// The port it listens on.
    public let port: Int
    private let state = Mutex(State())
    private let handler: @Sendable (Request) -> Response

    /// Starts a server on a free loopback port.
    public init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT` + path.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Body bytes written to connections so far, over all responses (heads and chunk framing
    /// not counted). Bytes the client never read may be among them, up to the sockets' buffers.
    public var bodyBytesSent: Int { state.withLock { $0.bodyBytesSent } }

    /// The most responses in progress at once: each counted from the moment its request is read
    /// until just before the last bytes of its response are written, or until the client has
    /// closed its connection (looked at, before counting, whenever a request comes). A client
    /// that starts a request only after its previous one ended (read to the end, or closed) can
    /// never make this count one it does not have.
    public var maxResponsesInProgress: Int { state.withLock { $0.maxInProgress } }

    /// Stops accepting and shuts every open connection, so no client keeps a kept-alive
    /// connection to this server (a later server may get the same port); stalled responses end.
    /// The listening socket is closed by the accepting thread as it ends, never here: closed
    /// while that thread is between two accepts, its number could go to another test's new
    /// listening socket, and this server's thread would take that server's connections.
    public func stop() {
        state.withLock { state in
            state.stopped = true
            shutdownClients(state)
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Drops every open connection as a station does, and goes on accepting new ones: what was
    /// written reaches the client, then the end of the stream (a blocked response ends).
    public func dropConnections() {
        state.withLock { shutdownClients($0) }
    }

    /// Shuts the connections in `state`, under its lock: a connection's thread takes it out
    /// under the lock before closing it, so no number here can be another socket's by now.
    private func shutdownClients(_ state: State) {
        for client in state.clients { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            let stopped = state.withLock { state in
                state.clients.insert(client)
                return state.stopped
            }
            if stopped { shutdown(client, Int32(SHUT_RDWR)) }
            let thread = Thread { [self] in
                serve(client)
                state.withLock { _ = $0.clients.remove(client) }
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        var buffer: [UInt8] = []
        while !isStopped {
            guard let request = readRequest(client, buffer: &buffer) else { return }
            state.withLock { state in
                state.requests.append(request)
                state.inProgress = state.inProgress.filter { !Self.peerClosed($0) }
                state.inProgress.insert(client)
                state.maxInProgress = max(state.maxInProgress, state.inProgress.count)
            }
            let response = handler(request)
            let sent = send(response, for: request, to: client) {
                state.withLock { _ = $0.inProgress.remove(client) }
            }
            state.withLock { _ = $0.inProgress.remove(client) }
            guard sent else { return }
        }
    }

    /// Whether the client has closed (or reset) `client`, without waiting.
    private static func peerClosed(_ client: Int32) -> Bool {
        let readHangUp: Int16 = 0x2000  // POLLRDHUP, which Glibc's module leaves out (it needs _GNU_SOURCE)
        var entry = pollfd(fd: client, events: readHangUp, revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & (readHangUp | Int16(POLLHUP | POLLERR)) != 0
    }

    private func readRequest(_ client: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
            }
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends a response, calling `ending` just before its last bytes are written; false when the
    /// connection must close.
    private func send(_ response: Response, for request: Request, to client: Int32, ending: () -> Void) -> Bool {
        var head = (response.statusLine ?? "HTTP/1.1 \(response.status) \(response.status < 300 ? "OK" : "Status")") + "\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        if response.untilClose {
            head += "Connection: close\r\n"
        } else if response.chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        head += "\r\n"
        if request.method == "HEAD" || response.body.isEmpty && !response.chunked { ending() }
        guard write(Array(head.utf8), to: client) else { return false }
        if request.method == "HEAD" { return true }

        var body = response.body[...]
        var sent = 0
        let piece = response.bytesPerSecond.map { max(1, $0 / 20) } ?? 64 * 1024
        while !body.isEmpty {
            if let hold = response.holdAfter, sent >= hold, let gate = response.gate {
                while gate.isClosed, !isStopped { usleep(10_000) }
            }
            if let stall = response.stallAfter, sent >= stall {
                while !isStopped { usleep(20_000) }
                return false
            }
            var count = min(piece, body.count)
            if let limit = response.closeAfter { count = min(count, limit - sent) }
            if let stall = response.stallAfter { count = min(count, max(stall - sent, 0)) }
            if let hold = response.holdAfter, sent < hold { count = min(count, hold - sent) }
            if count == 0 { return false }  // closeAfter reached
            let slice = Array(body.prefix(count))
            let framed =
                response.chunked
                ? Array(String(count, radix: 16).utf8) + [13, 10] + slice + [13, 10] : slice
            if count == body.count, !response.chunked { ending() }
            guard write(framed, to: client) else { return false }
            state.withLock { $0.bodyBytesSent += count }
            body = body.dropFirst(count)
            sent += count
            if let rate = response.bytesPerSecond { usleep(UInt32(1_000_000 * count / rate)) }
            if let limit = response.closeAfter, sent >= limit { return false }
        }
        if response.chunked {
            ending()
            return write(Array("0\r\n\r\n".utf8), to: client)
        }
        return response.closeAfter == nil && !response.untilClose
    }

    private func write(_ bytes: [UInt8], to client: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }
}

/// A gate responses can wait at (`Response.holdAfter`): closed until a test opens it.
public final class Gate: Sendable {
    private let closed = Mutex(true)
    private let opened = DispatchGroup()

    /// A closed gate.
    public init() { opened.enter() }

    /// Whether responses still wait.
    public var isClosed: Bool { closed.withLock { $0 } }

    /// Lets every waiting and later response carry on.
    public func open() {
        let wasClosed = closed.withLock { closed in
            defer { closed = false }
            return closed
        }
        if wasClosed { opened.leave() }
    }

    /// Blocks the calling thread (never one of the Swift concurrency pool's) until the gate opens.
    public func wait() { opened.wait() }
}
