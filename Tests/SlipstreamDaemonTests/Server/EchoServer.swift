import SlipstreamDaemon

/// A `WebServer` on a free loopback port whose handler echoes: a POST's body, a GET's
/// arguments as `name=value` lines, a WebSocket message's text.
func echoServer(_ change: (inout WebServer.Configuration) -> Void = { _ in }) throws -> WebServer {
    var configuration = WebServer.Configuration()
    configuration.port = 0
    configuration.files = ["/": .init(contentType: "text/html; charset=utf-8", bytes: Array("<p>page</p>".utf8))]
    change(&configuration)
    return try WebServer(configuration: configuration) { request, reply in
        switch request {
        case .post(let body):
            reply(.init(body: body))
        case .get(let arguments):
            reply(.init(contentType: "text/plain", body: Array(arguments.map { "\($0.name)=\($0.value)\n" }.joined().utf8)))
        case .message(let text, _):
            reply(.init(body: text))
        }
    }
}
