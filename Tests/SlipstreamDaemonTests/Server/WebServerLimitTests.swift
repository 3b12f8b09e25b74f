import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SlipstreamDaemon

/// The server's bounds: connections, idle time, WebSocket messages and queues, bad frames, and
/// where it listens.
@Suite("WebServer limits", .serialized)
struct WebServerLimitTests {
    @Test func connectionsPastTheBoundAreRefused() async throws {
        let server = try echoServer { $0.maxConnections = 2 }
        defer { server.close() }
        let (third, afterOneLeft) = try await offPool { [port = server.port] in
            let first = try RawClient(port: port)
            let second = try RawClient(port: port)
            for client in [first, second] {
                try client.request("POST", "/jsonrpc", port: port, body: Array("x".utf8))
                _ = try client.response()
            }
            let third = try RawClient(port: port)
            let refused = third.closedByServer()
            _ = consume first
            // The server learns of the close on its next turn: a few tries, each a new connection.
            var status = 0
            for _ in 0..<50 where status != 200 {
                status = (try? WebServerRefusalTests.post(port).status) ?? 0
                if status != 200 { usleep(20000) }
            }
            _ = second
            return (refused, status)
        }
        #expect(third)
        #expect(afterOneLeft == 200)
    }

    @Test func idleConnectionsAreClosed() async throws {
        let server = try echoServer {
            $0.idleTimeout = .seconds(1)
            $0.files["/big"] = .init(contentType: "application/octet-stream", bytes: [UInt8](repeating: 7, count: 64 << 20))
        }
        defer { server.close() }
        let (silent, halfHead, afterRequest, webSocket) = try await offPool { [port = server.port] in
            let silent = try RawClient(port: port)
            let halfHead = try RawClient(port: port)
            try halfHead.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
            let afterRequest = try RawClient(port: port)
            try afterRequest.request("GET", "/", port: port)
            _ = try afterRequest.response()
            let webSocket = try RawClient(port: port)
            _ = try webSocket.upgrade(port: port)
            // Every read waits at most 10 s: each must be closed well before.
            return (silent.closedByServer(), halfHead.closedByServer(), afterRequest.closedByServer(), webSocket.closedByServer())
        }
        let (halfBody, notReading) = try await offPool { [port = server.port] in
            let halfBody = try RawClient(port: port)
            try halfBody.send("POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 10\r\n\r\nhalf")
            // A client that asks for 64 MiB and reads none of it.
            let notReading = try RawClient(port: port)
            try notReading.request("GET", "/big", port: port)
            let started = Date()
            while try notReading.readSome() > 0, Date().timeIntervalSince(started) < 1 {}
            return (halfBody.closedByServer(), notReading.closedByServer())
        }
        #expect(halfBody)
        #expect(notReading)
        #expect(silent)
        #expect(halfHead)
        #expect(afterRequest)
        #expect(webSocket)
    }

    @Test func anOversizedMessageClosesItsWebSocketOnly() async throws {
        let server = try echoServer { $0.maxBodyBytes = 100 }
        defer { server.close() }
        let (whole, fragmented, justFits, next) = try await offPool { [port = server.port] in
            func closeStatus(_ frames: [UInt8]) throws -> Int {
                let client = try RawClient(port: port)
                _ = try client.upgrade(port: port)
                try client.send(frames)
                let frame = try client.readFrame()
                guard frame.opcode == 8, frame.payload.count >= 2 else { return -Int(frame.opcode) }
                return Int(frame.payload[0]) << 8 | Int(frame.payload[1])
            }
            let whole = try closeStatus(RawClient.frame([UInt8](repeating: 0x61, count: 101)))
            let fragmented = try closeStatus(
                RawClient.frame([UInt8](repeating: 0x61, count: 60), final: false)
                    + RawClient.frame([UInt8](repeating: 0x61, count: 60), opcode: 0))
            let client = try RawClient(port: port)
            _ = try client.upgrade(port: port)
            try client.send(RawClient.frame([UInt8](repeating: 0x61, count: 100)))
            let justFits = try client.readFrame().payload.count
            return (whole, fragmented, justFits, try WebServerRefusalTests.post(port).status)
        }
        #expect(whole == 1009)
        #expect(fragmented == 1009)
        #expect(justFits == 100)
        #expect(next == 200)
    }

    @Test func garbageInsteadOfAFrameClosesThatConnectionOnly() async throws {
        let server = try echoServer()
        defer { server.close() }
        let garbage: [[UInt8]] = [
            Array("GET / HTTP/1.1\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 64),
            RawClient.frame(Array("x".utf8), opcode: 3),  // a reserved opcode
            [0xF1] + RawClient.frame(Array("x".utf8)).dropFirst(),  // reserved bits set
            RawClient.frame([UInt8](repeating: 0, count: 200), opcode: 9),  // a ping longer than 125
            RawClient.frame([0xC3, 0x28]),  // text that is not UTF-8
        ]
        let (closed, next) = try await offPool { [port = server.port] in
            let closed = try garbage.map { bytes in
                let client = try RawClient(port: port)
                _ = try client.upgrade(port: port)
                try client.send(bytes)
                return client.webSocketClosedByServer()
            }
            return (closed, try WebServerRefusalTests.post(port).status)
        }
        #expect(closed == [Bool](repeating: true, count: garbage.count))
        #expect(next == 200)
    }

    @Test func aBroadcastReachesEveryWebSocket() async throws {
        let server = try echoServer()
        defer { server.close() }
        let frames = try await offPool { [port = server.port] in
            let clients = try [RawClient(port: port), RawClient(port: port)]
            for client in clients {
                _ = try client.upgrade(port: port)
                // A round trip: the server has taken the upgrade before the broadcast.
                try client.send(RawClient.frame(Array("ping".utf8)))
                _ = try client.readFrame()
            }
            server.broadcast(Array(#"{"method":"aria2.onDownloadStart"}"#.utf8))
            return try clients.map { try $0.readFrame() }
        }
        for frame in frames {
            #expect(frame.opcode == 1)
            #expect(frame.payload == Array(#"{"method":"aria2.onDownloadStart"}"#.utf8))
        }
    }

    @Test func aClientThatDoesNotReadIsClosedAndItsQueueDropped() async throws {
        let server = try echoServer { $0.maxQueuedBytesPerClient = 1 << 20 }
        defer { server.close() }
        let (received, closed, growth, next) = try await offPool { [port = server.port] in
            let slow = try RawClient(port: port)
            slow.shrinkReceiveBuffer(to: 256 << 10)
            _ = try slow.upgrade(port: port)
            try slow.send(RawClient.frame(Array("ping".utf8)))
            _ = try slow.readFrame()
            let before = residentBytes()
            // 64 MiB in distinct 64 KiB messages, to a client that reads none of them.
            for index in 0..<1024 {
                server.broadcast([UInt8](repeating: UInt8(0x41 + index % 26), count: 65536))
            }
            // A round trip on another connection: the server has taken every broadcast by then.
            let next = try WebServerRefusalTests.post(port).status
            let growth = residentBytes() - before
            // What the kernel held is read, then the stream ends (inside a frame: the rest dropped).
            var received = 0
            while let frame = try? slow.readFrame(), frame.opcode == 1 { received += 1 }
            return (received, slow.closedByServer(), growth, next)
        }
        #expect(received < 1024)
        #expect(closed)
        #expect(growth < 32 << 20)
        #expect(next == 200)
    }

    @Test func itListensOnLoopbackAlone() async throws {
        let server = try echoServer()
        defer { server.close() }
        let listening = try listeningAddresses(port: server.port)
        #expect(listening == ["0100007F"])
    }

    @Test func listenAllBindsEveryInterfaceAndTakesOtherAddressesAsHost() async throws {
        let server = try echoServer { $0.listenAll = true }
        defer { server.close() }
        let listening = try listeningAddresses(port: server.port)
        let status = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, host: "192.0.2.7:\(port)", body: Array("x".utf8))
            return try client.response().status
        }
        #expect(listening == ["00000000000000000000000000000000"] || listening.contains("00000000"))
        #expect(status == 200)
    }

    @Test func aPortInUseIsNamed() async throws {
        let server = try echoServer()
        defer { server.close() }
        #expect {
            _ = try echoServer { $0.port = server.port }
        } throws: { error in
            guard let error = error as? WebServerError else { return false }
            return error.code == .listen && error.message.contains("\(server.port)") && error.message.contains("in use")
        }
    }

    @Test func closeFromTheHandlerReturns() async throws {
        let holder = Mutex<WebServer?>(nil)
        let server = try WebServer(
            configuration: {
                var c = WebServer.Configuration(); c.port = 0; return c
            }()
        ) { _, reply in
            reply(.init(body: []))
            holder.withLock { $0?.close() }
        }
        holder.withLock { $0 = server }
        defer { holder.withLock { $0 = nil } }
        let port = server.port
        let closed = try await offPool {
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, body: [])
            return client.closedByServer()
        }
        server.close()
        #expect(closed)
        #expect(throws: (any Error).self) { _ = try RawClient(port: port).response() }
    }

    @Test func closeEndsTheThreadAndRefusesNewConnections() async throws {
        let server = try echoServer()
        let port = server.port
        server.close()
        server.close()
        #expect(throws: (any Error).self) { _ = try RawClient(port: port).response() }
    }
}

/// The local addresses (hex, as /proc/net/tcp and tcp6 print them) of sockets listening on `port`.
func listeningAddresses(port: Int) throws -> [String] {
    var addresses: [String] = []
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 3, fields[3] == "0A" else { continue }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, Int(local[1], radix: 16) == port else { continue }
            addresses.append(String(local[0]))
        }
    }
    return addresses
}

/// The process's resident memory, in bytes (/proc/self/statm).
func residentBytes() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
