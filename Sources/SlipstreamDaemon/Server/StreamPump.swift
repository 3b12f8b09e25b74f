import Dispatch
import SlipstreamCore
import Synchronization

/// One request of a streamed file, answered on a thread of its own: finds the source, waits for
/// its size, works out the range, then reads piece after piece, each once the server has
/// written the one before last (two pieces wait at most), and hands them to the server's
/// thread. Blocking reads happen here, never on the server's thread. `close()` (the client
/// left, the server stops) ends a wait at once; the source goes when the thread ends.
final class StreamPump: Sendable {
    /// What the thread hands the server's thread, in order.
    enum Event: Sendable {
        /// The response's head (or a whole refusal): `streamed` when pieces follow.
        case head(ServerConnection.Response)
        /// Bytes of the body; `last`: the body is complete.
        case piece([UInt8], last: Bool)
        /// The body of unknown length is complete: the connection closes.
        case end
        /// The body cannot be completed: the connection closes (the client sees it short).
        case failed
    }

    /// What the request asked.
    struct Asked: Sendable {
        var path: String
        var range: String?
        var headOnly: Bool
    }

    private struct State {
        var closed = false
        var source: (any WebServer.StreamSource)?
    }

    private let state = Mutex(State())
    /// Pieces the server may still take before the thread reads another.
    private let credits = DispatchSemaphore(value: 0)

    /// Starts answering `asked` on a thread of its own: `open` finds the source, `deliver` hands
    /// each event to the server's thread.
    init(
        _ asked: Asked, pieceBytes: Int, open: @escaping WebServer.StreamOpener,
        deliver: @escaping @Sendable (Event) -> Void
    ) {
        // Two pieces may wait: a semaphore made at 0 and raised (one made at 2 must not be
        // freed below 2).
        credits.signal()
        credits.signal()
        IOThread.start(name: "slipstream-stream") { [self] in
            run(asked, pieceBytes: pieceBytes, open: open, deliver: deliver)
            state.withLock { $0.source = nil }
        }
    }

    /// The server has written a piece: another may be read.
    func taken() { credits.signal() }

    /// Ends the request: a wait for bytes ends, nothing more is delivered. Any thread.
    func close() {
        let source = state.withLock { state in
            defer { state.closed = true }
            return state.closed ? nil : state.source
        }
        source?.close()
        credits.signal()
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func run(
        _ asked: Asked, pieceBytes: Int, open: WebServer.StreamOpener, deliver: @Sendable (Event) -> Void
    ) {
        let source: any WebServer.StreamSource
        switch open(asked.path) {
        case .refused(let reply):
            return deliver(.head(Self.refusal(reply)))
        case .source(let opened):
            source = opened
        }
        let adopted = state.withLock { state in
            if !state.closed { state.source = source }
            return !state.closed
        }
        guard adopted else { return source.close() }
        let size = source.size()
        guard !isClosed else { return }
        var head = ServerConnection.Response(
            status: 200, contentType: source.contentType,
            headers: [("Accept-Ranges", "bytes"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")],
            body: [])
        head.streamed = true
        head.headOnly = asked.headOnly
        let bytes: Range<Int64>?
        switch RangeRequest(header: asked.range, size: size) {
        case .unsatisfiable:
            head.status = 416
            head.headers.append(("Content-Range", "bytes */\(size ?? 0)"))
            head.contentLength = 0
            return deliver(.head(head))
        case .whole:
            bytes = size.map { 0..<$0 }
        case .part(let part):
            head.status = 206
            head.headers.append(("Content-Range", "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(size ?? 0)"))
            bytes = part
        }
        head.contentLength = bytes.map { $0.upperBound - $0.lowerBound }
        // A body of unknown length ends with the connection.
        head.closeAfter = bytes == nil
        guard !asked.headOnly, head.contentLength != 0 else { return deliver(.head(head)) }
        pump(source, from: bytes?.lowerBound ?? 0, to: bytes?.upperBound, pieceBytes: pieceBytes, head: head, deliver: deliver)
    }

    /// Reads and delivers the body from `start` to `end` (nil: the end of the file); the head
    /// goes with the first piece, so that a source that fails at once is answered 502.
    private func pump(
        _ source: any WebServer.StreamSource, from start: Int64, to end: Int64?, pieceBytes: Int,
        head: ServerConnection.Response, deliver: @Sendable (Event) -> Void
    ) {
        var offset = start
        var head: ServerConnection.Response? = head
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        while true {
            credits.wait()
            guard !isClosed else { return }
            let wanted = end.map { Int(min(Int64(pieceBytes), $0 - offset)) } ?? pieceBytes
            let count = buffer.withUnsafeMutableBytes {
                source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted]), at: offset)
            }
            guard !isClosed else { return }
            if let first = head {
                guard let count, count > 0 || end == nil else { return deliver(.head(Self.unreadable)) }
                deliver(.head(first))
                head = nil
            }
            guard let count else { return deliver(.failed) }
            guard count > 0 else { return deliver(end == nil ? .end : .failed) }
            offset += Int64(count)
            let last = offset == end
            deliver(.piece(Array(buffer[..<count]), last: last))
            if last { return }
        }
    }

    /// The answer when the first bytes cannot be read.
    private static let unreadable = refusal(
        .init(status: 502, contentType: "text/plain; charset=utf-8", body: Array("The file cannot be read: its download failed.\n".utf8)))

    /// A refusal `reply`, closing the connection once written.
    private static func refusal(_ reply: WebServer.Reply) -> ServerConnection.Response {
        var response = ServerConnection.Response(
            status: reply.status, contentType: reply.contentType, headers: [("Cache-Control", "no-store")], body: reply.body)
        response.closeAfter = true
        return response
    }
}
