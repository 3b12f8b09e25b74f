/// One connection's state, kept by `ServerLoop` on the server's thread alone.
final class ServerConnection {
    /// What the connection is doing.
    enum Phase {
        /// Reading a POST body of `expected` bytes.
        case readingBody(expected: Int)
        /// The handler has the request; its reply has not come.
        case awaitingReply
        /// Writing `response`.
        case responding
        /// A WebSocket.
        case webSocket
        /// Between requests.
        case idle
    }

    /// A response being written: its head first, then its body in pieces.
    struct Response {
        var status: Int
        var contentType: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Whether the body is left out (HEAD) while its length is still sent.
        var headOnly = false
        /// Whether the connection closes once it is written (a refusal, a body of unknown length).
        var closeAfter = false
        /// Whether the body comes in pieces from a `StreamPump` (`body` is unused).
        var streamed = false
        /// A streamed body's length; nil when unknown.
        var contentLength: Int64?
        var headWritten = false
        var bodyOffset = 0
    }

    /// A number no other connection of the server has (replies name their connection by it).
    let id: UInt64
    /// The number of requests handed to the handler so far: a reply names the one it answers,
    /// so that a late or second reply never answers a later request of the connection.
    var requests: UInt64 = 0
    var phase = Phase.idle
    var body: [UInt8] = []
    /// Body completions told again after the first, for the request being answered.
    var repeatedCompletions = 0
    var response: Response?
    /// The `Access-Control-Allow-Origin` of the request being answered, if any.
    var allowOrigin: String?
    /// The text message being received (fragments so far).
    var message: [UInt8] = []
    var receivingMessage = false
    /// Text frames to send, and their bytes.
    var outgoing: [[UInt8]] = []
    var outgoingStart = 0
    var queuedBytes = 0
    /// A WebSocket close status to close with at the next chance.
    var closeStatus: UInt32?
    /// The thread answering a streamed file, while it answers.
    var pump: StreamPump?
    /// A streamed body's pieces not yet written, and what of the first is.
    var pieces: [[UInt8]] = []
    var pieceOffset = 0
    /// Whether the streamed body's pieces have all come.
    var piecesComplete = false

    init(id: UInt64) { self.id = id }
}
