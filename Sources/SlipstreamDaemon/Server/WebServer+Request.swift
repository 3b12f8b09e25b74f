extension WebServer {
    /// One open WebSocket connection, as `Request.message` names it.
    public struct ClientID: Hashable, Sendable, CustomStringConvertible {
        /// A number no other connection of the same server has.
        public let value: UInt64

        /// The number.
        public var description: String { "client \(value)" }
    }

    /// A request for the handler.
    public enum Request: Sendable {
        /// A POST to the RPC path, with its body.
        case post(body: [UInt8])
        /// A GET of the RPC path with its query's arguments in order, percent-decoded. As
        /// libwebsockets decodes them, a `+` in the query is already a space here: aria2's
        /// GET form carries base64 in `params`, where the RPC layer turns spaces back into `+`.
        case get(arguments: [(name: String, value: String)])
        /// A text message of a WebSocket on the RPC path (fragments joined), and its sender.
        case message(text: [UInt8], client: ClientID)
    }

    /// The answer to a request. For a WebSocket message only `body` counts: it goes back to
    /// the sender as one text frame (nothing when empty).
    public struct Reply: Sendable {
        /// The HTTP status.
        public var status = 200
        /// The `Content-Type`.
        public var contentType = "application/json"
        /// The body.
        public var body: [UInt8]

        /// A reply of `body`, with status 200 and type `application/json` unless given.
        public init(status: Int = 200, contentType: String = "application/json", body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    /// Called on the server's thread for each request: must return at once (hop to a queue of
    /// your own). `reply` may be called from any thread, once (later calls are ignored, as
    /// are calls after the connection closed).
    public typealias Handler = @Sendable (Request, _ reply: @escaping @Sendable (Reply) -> Void) -> Void
}
