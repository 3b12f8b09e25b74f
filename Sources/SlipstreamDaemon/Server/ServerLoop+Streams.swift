import CWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// Streamed files (`Configuration.streamPath`): each request answered by a `StreamPump` on a
/// thread of its own, whose pieces this thread writes as the socket takes them.
extension ServerLoop {
    /// A request of a streamed file's path (its Host and Origin already checked).
    func streamRequest(
        _ wsi: OpaquePointer, _ connection: ServerConnection, path: String, method: Method, origin: RequestPolicy.OriginVerdict
    ) -> Int32 {
        guard let streams else { return refuse(wsi, connection, status: 404, "Not found.") }
        guard method == .get || method == .head else { return refuse(wsi, connection, status: 405, "Method not allowed.") }
        // A media element of another site's page sends no Origin, but its browser says where
        // it comes from (a player, or the address typed in, says nothing).
        guard policy.acceptsFetchSite(Self.customHeader(wsi, "sec-fetch-site:"), origin: origin) else {
            return refuse(wsi, connection, status: 403, "Requests from pages of other sites are refused.")
        }
        guard connections.values.count(where: { $0.pump != nil }) < configuration.maxStreams else {
            return refuse(wsi, connection, status: 503, "Too many files are being streamed at once.")
        }
        connection.phase = .awaitingReply
        connection.requests += 1
        connection.pieces = []
        connection.pieceOffset = 0
        connection.piecesComplete = false
        let id = connection.id, request = connection.requests
        let asked = StreamPump.Asked(path: path, range: Self.header(wsi, WSI_TOKEN_HTTP_RANGE), headOnly: method == .head)
        slipstream_lws_set_timer_usecs(wsi, Self.leaveCheckMicroseconds)
        stillAnswering(wsi)
        connection.pump = StreamPump(asked, pieceBytes: configuration.streamPieceBytes, open: streams) { [self] event in
            inbox.withLock {
                guard !$0.stopping else { return }
                $0.streamEvents.append((id, request, event))
                $0.wake()
            }
        }
        return 0
    }

    /// How often a stream's client is looked at while its answer waits for bytes.
    static let leaveCheckMicroseconds: lws_usec_t = 500_000

    /// `POLLRDHUP`: the peer closed (Linux; Glibc's module leaves it out without _GNU_SOURCE).
    static let pollReadHangUp: Int16 = 0x2000

    /// The stream's timer: a client that has gone is closed, which closes its source. While an
    /// answer waits for bytes, libwebsockets reads nothing from its socket and would see the
    /// client's close only at the idle timeout; meanwhile its reader would hold the download's
    /// window where nobody reads.
    func streamTimer(_ wsi: OpaquePointer) -> Int32 {
        guard let connection = connections[wsi], connection.pump != nil else { return 0 }
        var peer = pollfd(fd: slipstream_lws_get_socket_fd(wsi), events: Self.pollReadHangUp, revents: 0)
        if poll(&peer, 1, 0) > 0, peer.revents & (Self.pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 { return -1 }
        slipstream_lws_set_timer_usecs(wsi, Self.leaveCheckMicroseconds)
        return 0
    }

    /// A stream's answer goes on: it may take longer than a request (libwebsockets closed it
    /// after `idleTimeout` whatever it sent), but not stand still longer than `idleTimeout`
    /// (a client that stopped reading, a download that stalled: players ask again).
    private func stillAnswering(_ wsi: OpaquePointer) {
        slipstream_lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, configuration.idleSeconds)
    }

    /// What a stream's thread delivered for `connection`'s request being answered.
    func deliver(_ event: StreamPump.Event, _ wsi: OpaquePointer, _ connection: ServerConnection) {
        switch event {
        case .head(let response):
            connection.response = response
            _ = startResponse(wsi, connection)
        case .piece(let bytes, let last):
            connection.pieces.append(bytes)
            connection.piecesComplete = last
            _ = slipstream_lws_callback_on_writable(wsi)
        case .end:
            connection.piecesComplete = true
            _ = slipstream_lws_callback_on_writable(wsi)
        case .failed:
            closeSoon(wsi)
        }
    }

    /// The socket can take more of a streamed body: a part of its first piece.
    func writePiece(_ wsi: OpaquePointer, _ connection: ServerConnection, _ response: ServerConnection.Response) -> Int32 {
        guard !response.headOnly, response.contentLength != 0 else { return finishResponse(wsi, connection, response) }
        guard let piece = connection.pieces.first else {
            return connection.piecesComplete ? finishResponse(wsi, connection, response) : 0
        }
        let end = min(connection.pieceOffset + Self.pieceBytes, piece.count)
        let last = end == piece.count && connection.pieces.count == 1 && connection.piecesComplete
        guard write(wsi, piece[connection.pieceOffset..<end], last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) else { return -1 }
        stillAnswering(wsi)
        if end == piece.count {
            connection.pieces.removeFirst()
            connection.pieceOffset = 0
            connection.pump?.taken()
        } else {
            connection.pieceOffset = end
        }
        if connection.pieces.isEmpty {
            return connection.piecesComplete ? finishResponse(wsi, connection, response) : 0
        }
        return slipstream_lws_callback_on_writable(wsi) < 0 ? -1 : 0
    }
}
