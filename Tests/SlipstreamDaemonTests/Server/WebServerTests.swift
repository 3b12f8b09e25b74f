import Foundation
import Testing
import TestSupport

@testable import SlipstreamDaemon

/// The server through real sockets on loopback: what it serves.
@Suite("WebServer", .serialized)
struct WebServerTests {
    @Test func postIsAnsweredWithTheHandlersReply() async throws {
        let server = try echoServer()
        defer { server.close() }
        let response = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request(
                "POST", "/jsonrpc", port: port, headers: [("Content-Type", "application/json")], body: Array(#"{"a":1}"#.utf8))
            return try client.response()
        }
        #expect(response.status == 200)
        #expect(response.text == #"{"a":1}"#)
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test func getArgumentsArriveDecoded() async throws {
        let server = try echoServer()
        defer { server.close() }
        let response = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("GET", "/jsonrpc?method=aria2.tellActive&id=%41b&params=W1+x%2B%5D", port: port)
            return try client.response()
        }
        #expect(response.status == 200)
        // A raw `+` arrives as a space (libwebsockets decodes it so); `%2B` is a `+`.
        #expect(response.text == "method=aria2.tellActive\nid=Ab\nparams=W1 x+]\n")
    }

    @Test func thePageIsServedWithItsHeaders() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (page, head) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            try client.request("GET", "/", port: port)
            let page = try client.response()
            try client.request("HEAD", "/", port: port)
            return (page, try client.response(toHead: true))
        }
        #expect(page.status == 200)
        #expect(page.text == "<p>page</p>")
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["cache-control"] == "no-store")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        #expect(page.headers["x-frame-options"] == "DENY")
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("default-src 'self'"))
        #expect(policy.contains("connect-src 'self' ws://127.0.0.1:\(server.port)"))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    @Test func webSocketMessagesGoToTheHandlerAndBack() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (upgrade, echoed, joined) = try await offPool { [port = server.port] in
            let client = try RawClient(port: port)
            let upgrade = try client.upgrade(port: port)
            try client.send(RawClient.frame(Array("hello".utf8)))
            let echoed = try client.readFrame()
            try client.send(RawClient.frame(Array("frag".utf8), final: false) + RawClient.frame(Array("ments".utf8), opcode: 0))
            return (upgrade, echoed, try client.readFrame())
        }
        #expect(upgrade.status == 101)
        #expect(echoed.opcode == 1)
        #expect(echoed.payload == Array("hello".utf8))
        #expect(joined.payload == Array("fragments".utf8))
    }

    @Test func pipelinedRequestsAreAnsweredOrClosedNeverHung() async throws {
        let server = try echoServer()
        defer { server.close() }
        let (gets, posts, next) = try await offPool { [port = server.port] in
            let two = "GET /jsonrpc?two=2 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            let one = "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 3\r\n\r\none"
            let getClient = try RawClient(port: port)
            try getClient.send(two + two)
            let gets = try (0..<2).map { _ in try getClient.response().text }
            // libwebsockets 4.1 loops on a request pipelined behind a body until the first is
            // answered: the server answers the first and closes the connection.
            let postClient = try RawClient(port: port)
            try postClient.send(one + one)
            let posts = try postClient.response().text
            return (gets, posts, postClient.closedByServer() ? try WebServerRefusalTests.post(port).status : 0)
        }
        #expect(gets == ["two=2\n", "two=2\n"])
        #expect(posts == "one")
        #expect(next == 200)
    }

    @Test func aPipelinedRequestBehindASlowReplyIsClosedNotHung() async throws {
        var configuration = WebServer.Configuration()
        configuration.port = 0
        let server = try WebServer(configuration: configuration) { request, reply in
            guard case .post(let body) = request else { return reply(.init(body: [])) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { reply(.init(body: body)) }
        }
        defer { server.close() }
        let (closed, next) = try await offPool { [port = server.port] in
            let one = "POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 3\r\n\r\none"
            let client = try RawClient(port: port)
            try client.send(one + one)
            let closed = client.closedByServer()
            return (closed, try WebServerRefusalTests.post(port).status)
        }
        #expect(closed)
        #expect(next == 200)
    }
}
