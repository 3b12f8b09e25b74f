import CWebSockets

/// What other threads hand the server's thread (`ServerLoop.inbox`, under its mutex): replies,
/// broadcasts, streamed files' pieces and the request to stop. Whoever adds to it wakes the thread with
/// `lws_cancel_service`, under the same lock, so the context is never woken once destroyed.
struct ServerInbox: ~Copyable {
    /// Replies, each to request `request` of connection `connection`.
    var replies: [(connection: UInt64, request: UInt64, reply: WebServer.Reply)] = []
    var broadcasts: [[UInt8]] = []
    /// What the threads of streamed files deliver, each for request `request` of `connection`.
    var streamEvents: [(connection: UInt64, request: UInt64, event: StreamPump.Event)] = []
    var stopping = false
    /// The context while it runs; nil before and once the thread destroys it.
    var context: Context?

    /// Wakes the server's thread.
    func wake() {
        if let context { slipstream_lws_cancel_service(context.pointer) }
    }

    /// The libwebsockets context, which any thread may wake (`lws_cancel_service`).
    struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}
