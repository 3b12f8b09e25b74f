import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SlipstreamDaemon

/// Streamed files on real sockets: ranges as players ask them, reads answered as their bytes
/// come (the server answering others meanwhile), a client that leaves closing its source, and
/// the refusals, all before any source is opened.
@Suite("WebServer streams", .serialized)
struct WebServerStreamTests {
    /// A server whose `/stream/a.mp3` is what `source` makes (anything else: 404); counts opens.
    static func server(
        opens: OpenCount? = nil, _ change: (inout WebServer.Configuration) -> Void = { _ in },
        source: @escaping @Sendable () -> GrowingSource
    ) throws -> WebServer {
        var configuration = WebServer.Configuration()
        configuration.port = 0
        configuration.files = ["/": .init(contentType: "text/plain", bytes: Array("page".utf8))]
        change(&configuration)
        return try WebServer(
            configuration: configuration,
            streams: { path in
                opens?.value.add(1, ordering: .relaxed)
                guard path == "/stream/a.mp3" else { return .refused(.init(status: 404, contentType: "text/plain", body: [])) }
                return .source(source())
            }
        ) { _, reply in reply(.init(body: Array("rpc".utf8))) }
    }

    /// `GET /stream/a.mp3` (or `method`) with `headers`, on a new connection.
    static func get(
        _ port: Int, _ method: String = "GET", path: String = "/stream/a.mp3", host: String? = "", headers: [(String, String)] = []
    ) throws -> RawClient.Response {
        let client = try RawClient(port: port, timeoutSeconds: 60)
        try client.request(method, path, port: port, host: host, headers: headers)
        return try client.response(toHead: method == "HEAD")
    }

    @Test func rangesAreAnsweredAsPlayersAskThem() async throws {
        let server = try Self.server { GrowingSource(count: 200_000, available: 200_000) }
        defer { server.close() }
        let file = GrowingSource(count: 200_000, available: 0).bytes
        let answers = try await offPool { [port = server.port] in
            try [nil, "bytes=1000-1999", "bytes=-500", "bytes=0-9, 100-109", "bytes=300000-", "bytes=0-"].map { range in
                try Self.get(port, headers: range.map { [("Range", $0)] } ?? [])
            }
        }
        let whole = answers[0]
        #expect(whole.status == 200)
        #expect(whole.headers["content-type"] == "audio/mpeg")
        #expect(whole.headers["accept-ranges"] == "bytes")
        #expect(whole.headers["content-length"] == "200000")
        #expect(whole.body == file)
        #expect(answers[1].status == 206)
        #expect(answers[1].headers["content-range"] == "bytes 1000-1999/200000")
        #expect(answers[1].body == Array(file[1000..<2000]))
        #expect(answers[2].headers["content-range"] == "bytes 199500-199999/200000")
        #expect(answers[2].body == Array(file[199_500...]))
        // Of several ranges, the first: one part, no multipart.
        #expect(answers[3].status == 206)
        #expect(answers[3].headers["content-range"] == "bytes 0-9/200000")
        #expect(answers[3].body == Array(file[0..<10]))
        #expect(answers[4].status == 416)
        #expect(answers[4].headers["content-range"] == "bytes */200000")
        #expect(answers[4].body.isEmpty)
        #expect(answers[5].status == 206)
        #expect(answers[5].body == file)
    }

    @Test func headAndKeepAliveWork() async throws {
        let server = try Self.server { GrowingSource(count: 100_000, available: 100_000) }
        defer { server.close() }
        let (head, first, second) = try await offPool { [port = server.port] in
            let head = try Self.get(port, "HEAD", headers: [("Range", "bytes=5-")])
            let client = try RawClient(port: port, timeoutSeconds: 60)
            try client.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=0-99")])
            let first = try client.response()
            try client.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=100-199")])
            return (head, first, try client.response())
        }
        #expect(head.status == 206)
        #expect(head.headers["content-length"] == "99995")
        #expect(head.headers["content-range"] == "bytes 5-99999/100000")
        #expect(first.headers["content-range"] == "bytes 0-99/100000")
        #expect(second.headers["content-range"] == "bytes 100-199/100000")
        #expect(second.body.count == 100)
    }

    @Test func aRangeIsAnsweredWhenItsBytesArriveWhileOthersAreServed() async throws {
        let source = GrowingSource(count: 1 << 20, available: 0)
        let server = try Self.server { source }
        defer { server.close() }
        let (page, answer) = try await offPool { [port = server.port] in
            let waiting = try RawClient(port: port, timeoutSeconds: 60)
            try waiting.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=900000-900999")])
            // The server's thread answers others while the range's read waits.
            let page = try Self.get(port, path: "/")
            source.grow(to: 1 << 20)
            return (page, try waiting.response())
        }
        #expect(page.text == "page")
        #expect(answer.status == 206)
        #expect(answer.body == Array(source.bytes[900_000..<901_000]))
    }

    @Test func aClientThatLeavesClosesItsSourceAndFreesItsPlace() async throws {
        let source = GrowingSource(count: 1 << 20, available: 0)
        // Once the first is closed, others have every byte.
        let server = try Self.server({ $0.maxStreams = 1 }) {
            source.closeCount == 0 ? source : GrowingSource(count: 1 << 20, available: 1 << 20)
        }
        defer { server.close() }
        let (closed, busy, after) = try await offPool { [port = server.port] in
            let busy: Int
            do {
                let client = try RawClient(port: port, timeoutSeconds: 60)
                try client.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=500000-")])
                // Its read waits: a second stream is over the bound.
                busy = try Self.get(port).status
            }
            // The client closed its socket (its RawClient is gone): the source is closed.
            let closed = source.closedSignal.wait(timeout: .now() + 60) == .success
            return (closed, busy, try Self.get(port, headers: [("Range", "bytes=0-9")]))
        }
        #expect(busy == 503)
        #expect(closed)
        #expect(after.status == 206)
    }

    @Test func aStreamOutlivesTheIdleTimeoutWhileItsBytesFlowButNotWhenTheyStop() async throws {
        let source = GrowingSource(count: 12000, available: 0)
        let server = try Self.server({ $0.idleTimeout = .seconds(1) }) { source }
        defer { server.close() }
        let (flowing, stalled) = try await offPool { [port = server.port] in
            // 1000 bytes every 0.4 s, for 2.4 s: more than the idle second (time is what this is
            // about).
            let feeder = Thread {
                for step in 1...6 {
                    source.grow(to: step * 1000)
                    Thread.sleep(forTimeInterval: 0.4)
                }
            }
            feeder.start()
            let flowing = try Self.get(port, headers: [("Range", "bytes=0-5999")])
            // Past its bytes, a stream that stands still is closed (the player asks again).
            let client = try RawClient(port: port, timeoutSeconds: 60)
            try client.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=6000-")])
            source.grow(to: 6500)
            let stalled = Result { try client.response() }
            return (flowing, stalled)
        }
        #expect(flowing.status == 206)
        #expect(flowing.body == Array(source.bytes[0..<6000]))
        #expect(throws: RawClient.Failure.self) { try stalled.get() }
    }

    @Test func aStreamOfUnknownLengthIsServedWholeAndClosedAtItsEnd() async throws {
        let server = try Self.server { GrowingSource(count: 300_000, available: 300_000, sized: false) }
        defer { server.close() }
        let (head, body) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port, timeoutSeconds: 60)
            try client.request("GET", "/stream/a.mp3", port: port, headers: [("Range", "bytes=10-19")])
            return (try client.response(toHead: true), try client.untilClosed())
        }
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == nil)
        #expect(head.headers["content-range"] == nil)
        #expect(body == GrowingSource(count: 300_000, available: 0).bytes)
    }

    @Test func refusalsComeBeforeAnySourceIsOpened() async throws {
        let opens = OpenCount()
        let server = try Self.server(opens: opens) { GrowingSource(count: 10, available: 10) }
        defer { server.close() }
        let statuses = try await offPool { [port = server.port] in
            [
                try Self.get(port, host: "evil.example:\(port)").status,
                try Self.get(port, host: nil).status,
                try Self.get(port, headers: [("Origin", "http://evil.example")]).status,
                try Self.get(port, headers: [("Sec-Fetch-Site", "cross-site")]).status,
                try Self.get(port, headers: [("Sec-Fetch-Site", "same-site")]).status,
                try Self.get(port, "DELETE").status,
            ]
        }
        #expect(statuses == [403, 403, 403, 403, 403, 405])
        #expect(opens.value.load(ordering: .relaxed) == 0)
        let (unknown, own, typed) = try await offPool { [port = server.port] in
            (
                try Self.get(port, path: "/stream/b.mp3").status,
                try Self.get(port, headers: [("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")]).status,
                try Self.get(port, headers: [("Sec-Fetch-Site", "none")]).status
            )
        }
        #expect(unknown == 404)
        #expect(own == 200)
        #expect(typed == 200)
    }
}

/// How many times streams were opened.
final class OpenCount: Sendable {
    let value = Atomic(0)
}
