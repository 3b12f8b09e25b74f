import Foundation
import Synchronization
import Testing
import TestSupport

@testable import SlipstreamDaemon

/// The server's refusals, each through a real socket, and that it answers the next good
/// request after each.
@Suite("WebServer refusals", .serialized)
struct WebServerRefusalTests {
    /// A POST of `body` on a new connection: the echo's status and text.
    static func post(_ port: Int, _ body: String = "ok") throws -> RawClient.Response {
        let client = try RawClient(port: port)
        try client.request("POST", "/jsonrpc", port: port, body: Array(body.utf8))
        return try client.response()
    }

    /// Sends `request` on a new connection: the answer, and whether the server then closed it.
    static func refused(_ port: Int, _ send: (RawClient) throws -> Void) throws -> (status: Int, closed: Bool) {
        let client = try RawClient(port: port)
        try send(client)
        let response = try client.response()
        return (response.status, client.closedByServer())
    }

    @Test func aForeignHostIsRefused() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (refusals, next) = try await offPool { [port = server.port] in
            let refusals = try ["evil.example:\(port)", "127.0.0.1:1", "localhost", "10.0.0.1:\(port)", nil].map { host in
                try Self.refused(port) { try $0.request("POST", "/jsonrpc", port: port, host: host, body: Array("x".utf8)) }
            }
            let upgrade = try RawClient(port: port).upgrade(port: port, host: "rebind.example:\(port)")
            return (refusals + [(upgrade.status, true)], try Self.post(port))
        }
        for refusal in refusals {
            #expect(refusal.status == 403)
            #expect(refusal.closed)
        }
        #expect(next.status == 200)
    }

    @Test func ourOwnAddressesAreAccepted() async throws {
        let server = try echoServer()
        defer { server.close() }
        let statuses = try await offPool { [port = server.port] in
            try ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "LOCALHOST:\(port)"].map { host in
                let client = try RawClient(port: port)
                try client.request("POST", "/jsonrpc", port: port, host: host, body: Array("x".utf8))
                return try client.response().status
            }
        }
        #expect(statuses == [200, 200, 200, 200])
    }

    @Test func aForeignOriginIsRefusedBeforeTheHandlerRuns() async throws {
        let calls = Mutex(0)
        let server = try WebServer(
            configuration: {
                var c = WebServer.Configuration(); c.port = 0; return c
            }()
        ) { _, reply in
            calls.withLock { $0 += 1 }
            reply(.init(body: []))
        }
        defer { server.close() }
        let (refusal, upgrade, preflight) = try await offPool { [port = server.port] in
            // A "simple" POST (form type): no preflight in a browser, so it must be refused here.
            let refusal = try Self.refused(port) {
                try $0.request(
                    "POST", "/jsonrpc", port: port,
                    headers: [("Origin", "http://evil.example"), ("Content-Type", "text/plain")], body: Array("{}".utf8))
            }
            let upgrade = try RawClient(port: port).upgrade(port: port, headers: [("Origin", "http://evil.example")])
            let preflight = try Self.refused(port) {
                try $0.request("OPTIONS", "/jsonrpc", port: port, headers: [("Origin", "http://evil.example")])
            }
            return (refusal, upgrade.status, preflight)
        }
        #expect(refusal.status == 403)
        #expect(refusal.closed)
        #expect(upgrade == 403)
        #expect(preflight.status == 403)
        #expect(calls.withLock { $0 } == 0)
    }

    @Test func ourOwnPageAndAllowedOriginsMayCall() async throws {
        let server = try echoServer { $0.allowedOrigins = ["http://ariang.example:8080"] }
        defer { server.close() }
        let (same, allowed, preflight) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, headers: [("Origin", "http://127.0.0.1:\(port)")], body: Array("a".utf8))
            let same = try client.response()
            try client.request("POST", "/jsonrpc", port: port, headers: [("Origin", "http://ariang.example:8080")], body: Array("b".utf8))
            let allowed = try client.response()
            try client.request(
                "OPTIONS", "/jsonrpc", port: port,
                headers: [("Origin", "http://ariang.example:8080"), ("Access-Control-Request-Method", "POST")])
            return (same, allowed, try client.response(toHead: true))
        }
        #expect(same.status == 200)
        #expect(same.headers["access-control-allow-origin"] == nil)
        #expect(allowed.status == 200)
        #expect(allowed.headers["access-control-allow-origin"] == "http://ariang.example:8080")
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "http://ariang.example:8080")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
    }

    @Test func anyOriginWhenAllowedGetsAStar() async throws {
        let server = try echoServer { $0.allowAnyOrigin = true }
        defer { server.close() }
        let (post, get) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, headers: [("Origin", "http://any.example")], body: Array("a".utf8))
            let post = try client.response()
            try client.request("GET", "/jsonrpc?x=1", port: port, headers: [("Sec-Fetch-Site", "cross-site")])
            return (post, try client.response())
        }
        #expect(post.headers["access-control-allow-origin"] == "*")
        #expect(get.status == 200)
    }

    @Test func aCrossSiteScriptGetIsRefused() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (refusal, sameOrigin) = try await offPool { [port = server.port] in
            let refusal = try Self.refused(port) {
                try $0.request("GET", "/jsonrpc?method=x&jsoncallback=f", port: port, headers: [("Sec-Fetch-Site", "cross-site")])
            }
            let client = try RawClient(port: port)
            try client.request("GET", "/jsonrpc?method=x", port: port, headers: [("Sec-Fetch-Site", "same-origin")])
            return (refusal, try client.response())
        }
        #expect(refusal.status == 403)
        #expect(sameOrigin.status == 200)
    }

    @Test func aBodyNeedsALengthWithinTheBound() async throws {
        let server = try echoServer { $0.maxBodyBytes = 1000 }
        defer { server.close() }
        let (chunked, tooBig, next) = try await offPool { [port = server.port] in
            let chunked = try Self.refused(port) {
                try $0.request("POST", "/jsonrpc", port: port, headers: [("Transfer-Encoding", "chunked")])
                try $0.send("2\r\n{}\r\n0\r\n\r\n")
            }
            // Refused on its head: the body is never sent.
            let tooBig = try Self.refused(port) {
                try $0.request("POST", "/jsonrpc", port: port, headers: [("Content-Length", "1001")])
            }
            return (chunked, tooBig, try Self.post(port, String(repeating: "x", count: 1000)))
        }
        #expect(chunked.status == 411)
        #expect(chunked.closed)
        #expect(tooBig.status == 413)
        #expect(tooBig.closed)
        #expect(next.status == 200)
        #expect(next.body.count == 1000)
    }

    @Test func otherPathsAndMethodsAreRefused() async throws {
        let server = try echoServer()
        defer { server.close() }
        let statuses = try await offPool { [port = server.port] in
            try [("GET", "/nothing"), ("PUT", "/jsonrpc"), ("POST", "/"), ("DELETE", "/"), ("GET", "/jsonrpc/../etc/passwd")].map {
                let (method, path) = $0
                return try Self.refused(port) { try $0.request(method, path, port: port, body: method == "GET" ? nil : []) }.status
            }
        }
        #expect(statuses == [404, 405, 405, 405, 404])
    }

    @Test func headersPastTheBoundCloseTheConnection() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (closed, next) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("GET", "/", port: port, headers: [("X-Big", String(repeating: "a", count: 9000))])
            return (client.closedByServer(), try Self.post(port).status)
        }
        #expect(closed)
        #expect(next == 200)
    }

    @Test func aSecondOrLateReplyIsIgnored() async throws {
        let replies = Mutex<[@Sendable (WebServer.Reply) -> Void]>([])
        let server = try WebServer(
            configuration: {
                var c = WebServer.Configuration(); c.port = 0; return c
            }()
        ) { request, reply in
            guard case .post(let body) = request else { return }
            if body == Array("first".utf8) {
                reply(.init(body: body))
                reply(.init(body: Array("again".utf8)))
                replies.withLock { $0.append(reply) }
            } else {
                // The first request's reply, called again while this one waits, must not answer it.
                replies.withLock { $0.first?(.init(body: Array("late".utf8))) }
                reply(.init(body: body))
            }
        }
        defer { server.close() }
        let answers = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("POST", "/jsonrpc", port: port, body: Array("first".utf8))
            let first = try client.response().text
            try client.request("POST", "/jsonrpc", port: port, body: Array("second".utf8))
            return [first, try client.response().text]
        }
        #expect(answers == ["first", "second"])
    }
}
