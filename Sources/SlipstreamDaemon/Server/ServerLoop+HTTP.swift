import CWebSockets

/// HTTP requests: the checks every one passes, then the RPC path, streamed files, the static
/// files, or a refusal.
extension ServerLoop {
    /// The methods told apart (libwebsockets keeps the path under a token per method).
    enum Method {
        case get, head, post, options, other
    }

    /// A request's head (path, method, headers) has come.
    func httpRequest(_ wsi: OpaquePointer, path: String) -> Int32 {
        let connection = connection(wsi)
        connection.allowOrigin = nil
        let method = Self.method(of: wsi)
        let host = Self.header(wsi, WSI_TOKEN_HOST)
        guard let host, policy.acceptsHost(host) else {
            return refuse(wsi, connection, status: 403, "This server answers only to its own address.")
        }
        let origin = policy.verdict(origin: Self.header(wsi, WSI_TOKEN_ORIGIN), host: host)
        switch origin {
        case .refused:
            return refuse(wsi, connection, status: 403, "Requests from pages of other origins are refused.")
        case .allowedCrossOrigin(let allowed):
            connection.allowOrigin = allowed
        case .absent, .sameOrigin:
            break
        }
        if method == .options {
            guard connection.allowOrigin != nil, path == configuration.rpcPath else {
                return refuse(wsi, connection, status: 405, "Method not allowed.")
            }
            connection.response = ServerConnection.Response(
                status: 204, contentType: "text/plain",
                headers: [
                    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                    ("Access-Control-Allow-Headers", "Content-Type"), ("Access-Control-Max-Age", "600"),
                ], body: [])
            return startResponse(wsi, connection)
        }
        if path == configuration.rpcPath {
            return rpcRequest(wsi, connection, method: method, origin: origin)
        }
        if path.hasPrefix(configuration.streamPath) {
            return streamRequest(wsi, connection, path: path, method: method, origin: origin)
        }
        guard let file = configuration.files[path] else {
            return refuse(wsi, connection, status: 404, "Not found.")
        }
        guard method == .get || method == .head else {
            return refuse(wsi, connection, status: 405, "Method not allowed.")
        }
        var response = ServerConnection.Response(
            status: 200, contentType: file.contentType, headers: Self.pageHeaders(host: host), body: file.bytes)
        response.headOnly = method == .head
        connection.response = response
        return startResponse(wsi, connection)
    }

    /// A request of the RPC path: a POST's body is read first; a GET goes to the handler.
    private func rpcRequest(
        _ wsi: OpaquePointer, _ connection: ServerConnection, method: Method, origin: RequestPolicy.OriginVerdict
    ) -> Int32 {
        switch method {
        case .post:
            guard let lengthText = Self.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH), let length = Int(lengthText), length >= 0
            else { return refuse(wsi, connection, status: 411, "A request body needs a Content-Length.") }
            guard length <= configuration.maxBodyBytes else {
                return refuse(wsi, connection, status: 413, "The request body is larger than \(configuration.maxBodyBytes) bytes.")
            }
            connection.body = []
            connection.body.reserveCapacity(length)
            guard length > 0 else { return dispatch(wsi, connection, .post(body: [])) }
            connection.phase = .readingBody(expected: length)
            return 0
        case .get:
            guard policy.acceptsFetchSite(Self.customHeader(wsi, "sec-fetch-site:"), origin: origin) else {
                return refuse(wsi, connection, status: 403, "Requests from pages of other sites are refused.")
            }
            return dispatch(wsi, connection, .get(arguments: Self.queryArguments(wsi)))
        default:
            return refuse(wsi, connection, status: 405, "Method not allowed.")
        }
    }

    /// Bytes of a POST body.
    func httpBody(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let connection = connections[wsi], case .readingBody(let expected) = connection.phase else { return 0 }
        guard connection.body.count + bytes.count <= expected else { return -1 }
        connection.body.append(contentsOf: bytes)
        return 0
    }

    /// The POST body is complete: the handler has it.
    func httpBodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard let connection = connections[wsi] else { return 0 }
        guard case .readingBody = connection.phase else {
            // libwebsockets 4.1 calls this again while the reply is awaited, once, or without
            // end when a pipelined request follows the body (it loops on the bytes left until
            // the transaction completes, which only the reply can do): such a client is closed.
            connection.repeatedCompletions += 1
            return connection.repeatedCompletions > 16 ? -1 : 0
        }
        connection.repeatedCompletions = 0
        let body = connection.body
        connection.body = []
        return dispatch(wsi, connection, .post(body: body))
    }

    /// Hands `request` to the handler; its reply comes back through the inbox.
    private func dispatch(_ wsi: OpaquePointer, _ connection: ServerConnection, _ request: WebServer.Request) -> Int32 {
        connection.phase = .awaitingReply
        connection.requests += 1
        handler(request, replier(for: connection))
        return 0
    }

    /// Starts the answer `status` with `body` (the handler's reply).
    func respond(_ wsi: OpaquePointer, _ connection: ServerConnection, status: Int, contentType: String, body: [UInt8]) {
        connection.response = ServerConnection.Response(
            status: status, contentType: contentType, headers: [("Cache-Control", "no-store")], body: body)
        _ = startResponse(wsi, connection)
    }

    /// Answers `status` with a line of text, then closes the connection.
    func refuse(_ wsi: OpaquePointer, _ connection: ServerConnection, status: Int, _ text: String) -> Int32 {
        var response = ServerConnection.Response(
            status: status, contentType: "text/plain; charset=utf-8", headers: [("Cache-Control", "no-store")],
            body: Array((text + "\n").utf8))
        response.closeAfter = true
        connection.response = response
        connection.allowOrigin = nil
        return startResponse(wsi, connection)
    }

    /// Queues `connection.response` to be written when the socket can take it.
    func startResponse(_ wsi: OpaquePointer, _ connection: ServerConnection) -> Int32 {
        if let allowOrigin = connection.allowOrigin {
            connection.response?.headers.append(("Access-Control-Allow-Origin", allowOrigin))
            if allowOrigin != "*" { connection.response?.headers.append(("Vary", "Origin")) }
        }
        connection.phase = .responding
        return slipstream_lws_callback_on_writable(wsi) < 0 ? -1 : 0
    }

    /// The headers of the page and its files: no sniffing, no framing, nothing cached, no
    /// referrer, and nothing loaded or connected to but this server (its WebSocket included).
    static func pageHeaders(host: String) -> [(name: String, value: String)] {
        [
            ("X-Content-Type-Options", "nosniff"),
            (
                "Content-Security-Policy",
                "default-src 'self'; connect-src 'self' ws://\(host); base-uri 'none'; form-action 'self'; "
                    + "frame-ancestors 'none'; object-src 'none'"
            ),
            ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
        ]
    }
}
