import Foundation

/// A client of a loopback port that writes exactly the bytes it is given and reads what comes
/// back, byte-exact: HTTP requests (well formed or not) and a minimal WebSocket client (the
/// handshake, masked frames, frames read back), for the tests of the server's refusals. Every
/// read waits at most `timeoutSeconds`.
final class RawClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A response: status, headers (names lower-cased), body.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let socket: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`.
    init(port: Int, timeoutSeconds: Int = 10) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sets the socket's receive buffer (what the kernel holds for a client that does not read).
    func shrinkReceiveBuffer(to bytes: Int32) {
        var size = bytes
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// A request `method path` with `Host: 127.0.0.1:port` (unless `host` says otherwise; nil: none).
    func request(
        _ method: String, _ path: String, port: Int, host: String? = "", headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws {
        var text = "\(method) \(path) HTTP/1.1\r\n"
        if let host { text += "Host: \(host.isEmpty ? "127.0.0.1:\(port)" : host)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        try send(Array((text + "\r\n").utf8) + (body ?? []))
    }

    /// Reads one response (its body by Content-Length; none without, nor for a HEAD's).
    func response(toHead: Bool = false) throws -> Response {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var range = pending.firstRange(of: end)
        while range == nil {
            guard try receive() else { throw Failure(description: "closed before a response head (\(pending.count) bytes)") }
            range = pending.firstRange(of: end)
        }
        let lines = String(decoding: pending[..<range!.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        pending.removeFirst(range!.upperBound)
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = toHead ? 0 : headers["content-length"].flatMap { Int($0) } ?? 0
        while pending.count < length {
            guard try receive() else { throw Failure(description: "closed inside a body") }
        }
        let body = Array(pending.prefix(length))
        pending.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server closed the connection: reads (and drops) until the end of the stream
    /// or a reset; false when a read times out first.
    func closedByServer() -> Bool {
        while true {
            do {
                guard try receive() else { return true }
                pending.removeAll()
            } catch {
                return !"\(error)".contains("timed out")
            }
        }
    }

    /// Everything left until the server closes the connection (a body without a length).
    func untilClosed() throws -> [UInt8] {
        while try receive() {}
        defer { pending.removeAll() }
        return pending
    }

    /// Reads what one read returns and drops it: the count (0 at the end of the stream).
    func readSome() throws -> Int {
        let before = pending.count
        guard try receive() else { return 0 }
        defer { pending.removeAll() }
        return pending.count - before
    }

    // MARK: WebSocket

    /// Sends the upgrade to a WebSocket and reads the answer's head.
    func upgrade(port: Int, path: String = "/jsonrpc", host: String? = "", headers: [(String, String)] = []) throws -> Response {
        var all = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Version", "13"),
        ]
        all += headers
        try request("GET", path, port: port, host: host, headers: all)
        return try response()
    }

    /// Whether the server closes the WebSocket: a close frame comes (libwebsockets then waits a
    /// few seconds for the client's own before it drops the connection), or the stream ends;
    /// false when a read times out first.
    func webSocketClosedByServer() -> Bool {
        while true {
            do {
                if try readFrame().opcode == 8 { return true }
            } catch {
                return !"\(error)".contains("timed out")
            }
        }
    }

    /// One masked frame: `opcode` (1 text, 0 continuation, 8 close...) with FIN as `final`.
    static func frame(_ payload: [UInt8], opcode: UInt8 = 1, final: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// Reads one frame from the server (unmasked): its opcode and payload.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8]) {
        try fill(2)
        let opcode = pending[0] & 0x0F
        var length = Int(pending[1] & 0x7F)
        var header = 2
        if length == 126 {
            try fill(4)
            length = Int(pending[2]) << 8 | Int(pending[3])
            header = 4
        } else if length == 127 {
            try fill(10)
            length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        try fill(header + length)
        let payload = Array(pending[header..<header + length])
        pending.removeFirst(header + length)
        return (opcode, payload)
    }

    private func fill(_ count: Int) throws {
        while pending.count < count {
            guard try receive() else { throw Failure(description: "closed inside a frame") }
        }
    }

    /// Appends one read to `pending`; false at the end of the stream.
    private func receive() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure(description: "recv: errno \(errno)\(errno == EAGAIN ? " (timed out)" : "")") }
        pending += buffer.prefix(n)
        return n > 0
    }
}
