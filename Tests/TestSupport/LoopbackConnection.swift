import Foundation

/// One plain HTTP/1.0 GET to a loopback port, read byte by byte: for what the tests check below
/// any HTTP client (ICY metadata blocks as a server sends them, Icecast's admin API). Blocking,
/// every read bounded by a timeout: use it off the Swift concurrency pool (`offPool`). Used by
/// one thread at a time; closes its socket when it goes.
public final class LoopbackConnection {
    /// Why a connection failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The status line and header lines of the response, without the blank line.
    public private(set) var head: [String] = []
    private let socket: Int32
    /// Bytes read past the head; those before `start` are handed out already.
    private var pending: [UInt8] = []
    private var start = 0

    /// Connects to 127.0.0.1:`port`, sends `GET path` with `headers` and reads the response's
    /// head. Each read waits at most `timeoutSeconds`.
    public init(port: Int, path: String, headers: [String: String] = [:], timeoutSeconds: Double = 30) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - timeoutSeconds.rounded(.down)) * 1e6))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: slipstream-tests\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try send(Array((request + "\r\n").utf8))
        head = try readHead()
    }

    deinit { Glibc.close(socket) }

    /// The status code from the status line (0 when there is none).
    public var status: Int {
        head.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
    }

    /// The value of header `name` (any case), trimmed; nil when absent.
    public func header(_ name: String) -> String? {
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The next `count` bytes of the body; throws when the body ends or a read times out first.
    public func read(exactly count: Int) throws -> [UInt8] {
        while pending.count - start < count {
            guard try receive() else { throw Failure(description: "the body ended after \(pending.count - start) of \(count) bytes") }
        }
        start += count
        return Array(pending[start - count..<start])
    }

    /// The rest of the body, up to its end (at most `limit` bytes).
    public func readToEnd(limit: Int = 1 << 20) throws -> [UInt8] {
        while pending.count - start < limit, try receive() {}
        defer { start = pending.count }
        return Array(pending[start...].prefix(limit))
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// Appends what one read returns to `pending` (dropping what was handed out); false at
    /// the end of the stream.
    private func receive() throws -> Bool {
        pending.removeFirst(start)
        start = 0
        let old = pending.count
        pending += repeatElement(0, count: 65536)
        let n = pending[old...].withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        let error = errno
        pending.removeLast(65536 - max(n, 0))
        if n < 0 { throw Failure(description: "recv: errno \(error)\(error == EAGAIN ? " (timed out)" : "")") }
        return n > 0
    }

    private func readHead() throws -> [String] {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = pending.firstRange(of: end) {
                start = range.upperBound
                return String(decoding: pending[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            }
            guard pending.count < 65536, try receive() else { throw Failure(description: "no response head") }
        }
    }
}
