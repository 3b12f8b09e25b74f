extension WebServer {
    /// What a `WebServer` serves and the bounds it keeps. The defaults are the safe ones:
    /// loopback only, no other origin, bounded bodies, connections and queues.
    public struct Configuration: Sendable {
        /// The TCP port; 0 for any free one (read `WebServer.port` after `init`).
        public var port = 6800
        /// Whether to listen on every interface (IPv4 and IPv6). Off: 127.0.0.1 alone, and
        /// peers that are not loopback are refused.
        public var listenAll = false
        /// Origins (`scheme://host[:port]`) whose pages may call the server, besides its own
        /// page. A request with another `Origin` is refused (403) before it runs.
        public var allowedOrigins: [String] = []
        /// Whether a page of any origin may call the server (aria2's `--rpc-allow-origin-all`).
        public var allowAnyOrigin = false
        /// The largest POST body or WebSocket message, in bytes: a larger body is refused (413)
        /// before it is read, a larger message closes its WebSocket (1009).
        public var maxBodyBytes = 1 << 20
        /// Connections open at once; more are refused (closed as they come).
        public var maxConnections = 128
        /// How long a connection may stay silent (before its request, between requests, or a
        /// WebSocket that answers no ping) before it is closed. Whole seconds, at least one.
        public var idleTimeout: Duration = .seconds(60)
        /// A WebSocket client whose outgoing messages not yet sent pass this many bytes (one
        /// that does not read) is closed, and its messages dropped.
        public var maxQueuedBytesPerClient = 8 << 20
        /// Static files by path (`"/"` is the page), answered to GET and HEAD.
        public var files: [String: File] = [:]
        /// The path of the RPC: POST, GET with a query, and the WebSocket.
        public var rpcPath = "/jsonrpc"
        /// The start of the paths of streamed files (GET and HEAD with ranges, see
        /// `WebServer.StreamSource`); served only when the server has a `StreamOpener`.
        public var streamPath = "/stream/"
        /// Streamed files served at once; more are answered 503.
        public var maxStreams = 16
        /// The bytes of a streamed file read at a time: each client holds at most two such
        /// pieces besides what its socket holds.
        public var streamPieceBytes = 65536

        /// The defaults.
        public init() {}

        /// `idleTimeout` in whole seconds, at least one; at most what the WebSocket idle policy
        /// holds (16 bits).
        var idleSeconds: Int32 {
            let idle = idleTimeout.components
            return Int32(min(65535, max(1, idle.seconds + (idle.attoseconds > 0 ? 1 : 0))))
        }
    }

    /// A static file: its `Content-Type` and its bytes.
    public struct File: Sendable {
        /// The `Content-Type` sent with it, such as `text/html; charset=utf-8`.
        public var contentType: String
        /// The file's bytes.
        public var bytes: [UInt8]

        /// A file of `bytes` sent as `contentType`.
        public init(contentType: String, bytes: [UInt8]) {
            self.contentType = contentType
            self.bytes = bytes
        }
    }
}
