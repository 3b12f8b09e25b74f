import CWebSockets

/// Reading a request's head from libwebsockets.
extension ServerLoop {
    /// The request's method, told by which token holds its path.
    static func method(of wsi: OpaquePointer) -> Method {
        if slipstream_lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 { return .get }
        if slipstream_lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 { return .post }
        if slipstream_lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 { return .head }
        if slipstream_lws_hdr_total_length(wsi, WSI_TOKEN_OPTIONS_URI) > 0 { return .options }
        return .other
    }

    /// The value of header `token`, or nil when absent (or empty).
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(slipstream_lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        return text(capacity: length + 1) { slipstream_lws_hdr_copy(wsi, $0, $1, token) }
    }

    /// The value of a header libwebsockets has no token for (`name` lower-case, with its colon).
    static func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        let nameLength = Int32(name.utf8.count)
        let length = Int(slipstream_lws_hdr_custom_length(wsi, name, nameLength))
        guard length >= 0 else { return nil }
        return text(capacity: length + 1) { slipstream_lws_hdr_custom_copy(wsi, $0, $1, name, nameLength) }
    }

    /// The query's arguments, in order, percent-decoded by libwebsockets (a `+` becomes a space).
    static func queryArguments(_ wsi: OpaquePointer) -> [(name: String, value: String)] {
        var arguments: [(name: String, value: String)] = []
        var index: Int32 = 0
        while index < 256 {
            let length = Int(slipstream_lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            guard length > 0,
                let fragment = text(capacity: length + 1, { slipstream_lws_hdr_copy_fragment(wsi, $0, $1, WSI_TOKEN_HTTP_URI_ARGS, index) })
            else { break }
            if let equals = fragment.firstIndex(of: "=") {
                arguments.append((String(fragment[..<equals]), String(fragment[fragment.index(after: equals)...])))
            } else {
                arguments.append((fragment, ""))
            }
            index += 1
        }
        return arguments
    }

    /// The text `copy` writes into a buffer of `capacity` bytes (it returns the length, or < 0).
    private static func text(capacity: Int, _ copy: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: capacity)
        let length = buffer.withUnsafeMutableBufferPointer { copy($0.baseAddress!, Int32($0.count)) }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
