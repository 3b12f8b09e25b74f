import CWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// WebSockets on the RPC path: the upgrade's checks, messages in (bounded), text frames out
/// (a bounded queue per client).
extension ServerLoop {
    /// A request to upgrade to `protocolName` (libwebsockets asks before it answers): only a
    /// WebSocket on the RPC path, with our Host and an allowed Origin (if any).
    func confirmUpgrade(_ wsi: OpaquePointer, to protocolName: String) -> Int32 {
        guard protocolName == "websocket" else { return writeRefusalNow(wsi, status: 403) }
        let path = Self.header(wsi, WSI_TOKEN_GET_URI) ?? ""
        guard let host = Self.header(wsi, WSI_TOKEN_HOST), policy.acceptsHost(host) else {
            return writeRefusalNow(wsi, status: 403)
        }
        guard policy.verdict(origin: Self.header(wsi, WSI_TOKEN_ORIGIN), host: host) != .refused else {
            return writeRefusalNow(wsi, status: 403)
        }
        guard path == configuration.rpcPath else { return writeRefusalNow(wsi, status: 404) }
        return 0
    }

    /// Writes a bare `status` response at once (the upgrade callback cannot wait for the socket
    /// to be writable) and asks to close.
    private func writeRefusalNow(_ wsi: OpaquePointer, status: Int) -> Int32 {
        let text = "HTTP/1.1 \(status) \(status == 404 ? "Not Found" : "Forbidden")\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = write(wsi, Array(text.utf8)[...], LWS_WRITE_HTTP)
        return 1
    }

    /// The upgrade is done: the connection is a WebSocket client.
    func webSocketOpened(_ wsi: OpaquePointer) -> Int32 {
        let connection = connection(wsi)
        connection.phase = .webSocket
        connection.response = nil
        webSockets.insert(wsi)
        return 0
    }

    /// A piece of a frame: text is joined into messages of at most `maxBodyBytes`.
    func webSocketReceived(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let connection = connections[wsi] else { return -1 }
        if !connection.receivingMessage {
            guard slipstream_lws_frame_is_binary(wsi) == 0 else { return close(wsi, status: LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE) }
            connection.receivingMessage = true
            connection.message = []
        }
        let remaining = slipstream_lws_remaining_packet_payload(wsi)
        guard connection.message.count + bytes.count + remaining <= configuration.maxBodyBytes else {
            connection.message = []
            return close(wsi, status: LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE)
        }
        connection.message.append(contentsOf: bytes)
        guard remaining == 0, slipstream_lws_is_final_fragment(wsi) != 0 else { return 0 }
        let text = connection.message
        connection.message = []
        connection.receivingMessage = false
        connection.requests += 1
        handler(.message(text: text, client: WebServer.ClientID(value: connection.id)), replier(for: connection))
        return 0
    }

    /// Queues a text frame for `wsi`; a client whose queue passes its bound is closed instead.
    func send(_ text: [UInt8], to wsi: OpaquePointer, _ connection: ServerConnection) {
        guard connection.closeStatus == nil else { return }
        guard connection.queuedBytes + text.count <= configuration.maxQueuedBytesPerClient else {
            connection.outgoing = []
            connection.outgoingStart = 0
            connection.queuedBytes = 0
            connection.closeStatus = LWS_CLOSE_STATUS_POLICY_VIOLATION.rawValue
            closeSoon(wsi)
            return
        }
        connection.outgoing.append(text)
        connection.queuedBytes += text.count
        _ = slipstream_lws_callback_on_writable(wsi)
    }

    /// The socket can take a frame.
    func webSocketWritable(_ wsi: OpaquePointer) -> Int32 {
        guard let connection = connections[wsi] else { return 0 }
        if let status = connection.closeStatus { return close(wsi, status: lws_close_status(rawValue: status)) }
        guard connection.outgoingStart < connection.outgoing.count else { return 0 }
        let text = connection.outgoing[connection.outgoingStart]
        connection.outgoingStart += 1
        connection.queuedBytes -= text.count
        if connection.outgoingStart == connection.outgoing.count {
            connection.outgoing.removeAll(keepingCapacity: true)
            connection.outgoingStart = 0
        } else if connection.outgoingStart >= 64 {
            connection.outgoing.removeFirst(connection.outgoingStart)
            connection.outgoingStart = 0
        }
        guard write(wsi, text[...], LWS_WRITE_TEXT) else { return -1 }
        if !connection.outgoing.isEmpty { _ = slipstream_lws_callback_on_writable(wsi) }
        return 0
    }

    /// Closes the WebSocket with `status`.
    private func close(_ wsi: OpaquePointer, status: lws_close_status) -> Int32 {
        slipstream_lws_close_reason(wsi, status, nil, 0)
        return -1
    }
}
