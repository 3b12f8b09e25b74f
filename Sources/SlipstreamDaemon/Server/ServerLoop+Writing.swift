import CWebSockets

/// Writing an HTTP response when its socket can take it: the head, then the body in pieces.
extension ServerLoop {
    /// The most written to a socket in one go: libwebsockets keeps what the socket refuses, and
    /// calls back only once that is sent.
    static let pieceBytes = 16384

    /// The socket can take more of the response.
    func writeResponse(_ wsi: OpaquePointer) -> Int32 {
        guard let connection = connections[wsi], var response = connection.response else { return 0 }
        if !response.headWritten {
            guard writeHead(wsi, response) else { return -1 }
            response.headWritten = true
            connection.response = response
        }
        if response.streamed { return writePiece(wsi, connection, response) }
        let body = response.headOnly ? [] : response.body
        if response.bodyOffset < body.count {
            let end = min(response.bodyOffset + Self.pieceBytes, body.count)
            let last = end == body.count
            guard write(wsi, body[response.bodyOffset..<end], last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) else { return -1 }
            response.bodyOffset = end
            if !last {
                connection.response = response
                return slipstream_lws_callback_on_writable(wsi) < 0 ? -1 : 0
            }
        }
        return finishResponse(wsi, connection, response)
    }

    /// `response` is written: the connection waits for its next request, or closes.
    func finishResponse(_ wsi: OpaquePointer, _ connection: ServerConnection, _ response: ServerConnection.Response) -> Int32 {
        connection.response = nil
        connection.phase = .idle
        connection.allowOrigin = nil
        connection.pump = nil
        connection.pieces = []
        if response.closeAfter { return -1 }
        return slipstream_lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Writes the status line and headers; false when they do not fit or the write fails.
    private func writeHead(_ wsi: OpaquePointer, _ response: ServerConnection.Response) -> Bool {
        var buffer = [UInt8](repeating: 0, count: slipstream_lws_pre + 8192)
        return buffer.withUnsafeMutableBufferPointer { buffer -> Bool in
            let start = buffer.baseAddress! + slipstream_lws_pre
            let end = buffer.baseAddress! + buffer.count - 1
            var position: UnsafeMutablePointer<UInt8>? = start
            // No length (`max`): none for a 204, none known for a stream that ends with the connection.
            let length =
                if response.status == 204 {
                    lws_filepos_t.max
                } else if response.streamed {
                    response.contentLength.map { lws_filepos_t($0) } ?? lws_filepos_t.max
                } else {
                    lws_filepos_t(response.body.count)
                }
            guard slipstream_lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType, length, &position, end) == 0
            else { return false }
            for (name, value) in response.headers {
                let added = Array((name.lowercased() + ":").utf8CString).withUnsafeBufferPointer { name in
                    Array(value.utf8).withUnsafeBufferPointer { value in
                        name.withMemoryRebound(to: UInt8.self) { name in
                            slipstream_lws_add_http_header_by_name(
                                wsi, name.baseAddress, value.baseAddress, Int32(value.count), &position, end)
                        }
                    }
                }
                guard added == 0 else { return false }
            }
            return slipstream_lws_finalize_write_http_header(wsi, start, &position, end) == 0
        }
    }

    /// Writes `bytes` as `kind` (with the room libwebsockets needs before them); false on failure.
    func write(_ wsi: OpaquePointer, _ bytes: ArraySlice<UInt8>, _ kind: lws_write_protocol) -> Bool {
        var buffer = [UInt8](repeating: 0, count: slipstream_lws_pre)
        buffer.append(contentsOf: bytes)
        let written = buffer.withUnsafeMutableBufferPointer {
            slipstream_lws_write(wsi, $0.baseAddress! + slipstream_lws_pre, bytes.count, kind)
        }
        return written >= bytes.count
    }
}
