// The libFuzzer target for what a WebSocket client sends after its handshake: one WebServer
// (echoing, small bounds) on a free loopback port for the whole run; each input goes to a new
// connection upgraded to a WebSocket, as the bytes that follow the handshake, then the client
// stops sending. Whatever the bytes, the server must answer with well-formed frames only (no
// mask, known opcodes, text within maxBodyBytes, control frames whole and short), close that
// connection, and still answer a good POST on another. (A close frame's status is not checked:
// libwebsockets 4.1 echoes the client's, whatever it is.)

import FuzzSupport
import SlipstreamDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The server, started on first use, for the whole run.
let fuzzServer: WebServer = {
    var configuration = WebServer.Configuration()
    configuration.port = 0
    configuration.maxBodyBytes = 1024
    configuration.maxQueuedBytesPerClient = 8192
    configuration.idleTimeout = .seconds(5)
    // Thousands of inputs a second, each two connections: the connection bound (tested on its
    // own in WebServerRefusalTests) must not be what a good POST meets here, while the server
    // is still closing the connections of inputs before.
    configuration.maxConnections = 4096
    do {
        return try WebServer(configuration: configuration) { request, reply in
            switch request {
            case .post(let body), .message(let body, _): reply(.init(body: body))
            case .get: reply(.init(body: []))
            }
        }
    } catch {
        fatalError("the server did not start: \(error)")
    }
}()

func fuzzWebSocketFraming(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    let port = fuzzServer.port
    let client = FuzzClient(port: port)
    client.send(
        Array(
            ("GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
    let head = client.readHead()
    require(head.hasPrefix("HTTP/1.1 101"), "the upgrade was not taken: \(head)")
    client.send(input)
    client.shutdownWrites()
    // Everything the server sends until it closes: frames, each well formed.
    let output = client.readToEnd()
    checkFrames(output)
    let post = FuzzClient(port: port)
    post.send(Array("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\n\r\nok".utf8))
    let answer = post.readHead()
    require(answer.hasPrefix("HTTP/1.1 200"), "the server did not answer a good POST after the input: \(answer)")
    return 0
}

/// Crashes unless `bytes` is a sequence of well-formed server frames (the last may be cut
/// short: the connection may close inside one).
func checkFrames(_ bytes: [UInt8]) {
    var offset = 0
    while offset + 2 <= bytes.count {
        let first = bytes[offset], second = bytes[offset + 1]
        let opcode = first & 0x0F
        require(first & 0x70 == 0, "a frame with reserved bits set: \(first)")
        require([0, 1, 2, 8, 9, 10].contains(opcode), "a frame with opcode \(opcode)")
        require(second & 0x80 == 0, "a server frame is masked")
        var length = Int(second & 0x7F)
        var header = 2
        if length == 126 {
            guard offset + 4 <= bytes.count else { return }
            length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            header = 4
        } else if length == 127 {
            guard offset + 10 <= bytes.count else { return }
            length = bytes[offset + 2..<offset + 10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        require(length <= 1024, "a frame of \(length) bytes, past maxBodyBytes")
        if opcode >= 8 {
            require(first & 0x80 != 0 && length <= 125, "a control frame of \(length) bytes, or fragmented")
        }
        offset += header + length
    }
}

/// A blocking loopback client whose every read waits at most five seconds.
final class FuzzClient {
    private let socket: Int32

    init(port: Int) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        require(socket >= 0, "socket: errno \(errno)")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        require(connected == 0, "connect to the server: errno \(errno)")
    }

    // Closed with a reset, not a FIN: no TIME_WAIT left behind, thousands of times a second.
    deinit {
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        close(socket)
    }

    /// Sends `bytes`; stops quietly when the server has closed.
    func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            sent += n
        }
    }

    func shutdownWrites() { shutdown(socket, Int32(SHUT_WR)) }

    /// The response head, read byte by byte up to its blank line (what came, when it closes first).
    func readHead() -> String {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 8192, recv(socket, &byte, 1, 0) == 1 {
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// Everything until the server closes; crashes when it neither closes nor sends for five seconds.
    func readToEnd() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                bytes += buffer.prefix(n)
                require(bytes.count < 1 << 20, "the server sent more than 1 MiB for one input")
                continue
            }
            require(n == 0 || errno == ECONNRESET, "the server did not close the connection (errno \(errno))")
            return bytes
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

/// A masked client frame.
func maskedFrame(_ payload: [UInt8], opcode: UInt8 = 1, final: Bool = true) -> [UInt8] {
    var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
    if payload.count < 126 {
        frame.append(0x80 | UInt8(payload.count))
    } else {
        frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    }
    let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    return frame + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
}

let webSocketFramingSeeds: [[UInt8]] = [
    maskedFrame(Array(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#.utf8)),
    maskedFrame(Array("frag".utf8), final: false) + maskedFrame(Array("ments".utf8), opcode: 0),
    maskedFrame(Array("ping".utf8), opcode: 9) + maskedFrame(Array("text".utf8)),
    maskedFrame([0x03, 0xE8], opcode: 8),
    maskedFrame([UInt8](repeating: 0x61, count: 1025)),
    maskedFrame([0x00, 0x01, 0x02], opcode: 2),
    [0x81, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    maskedFrame(Array("a".utf8)) + maskedFrame(Array("b".utf8)) + maskedFrame(Array("c".utf8)),
]
