/// The status and headers of the final response of a transfer (after redirects),
/// with the fields Slipstream relies on already parsed.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The HTTP status code, e.g. 200 or 206.
    public var status: Int
    /// Every header field of the final response, in order.
    public var headers: HTTPHeaders
    /// The URL that answered, after any redirects.
    public var effectiveURL: String

    /// Creates a head.
    public init(status: Int, headers: HTTPHeaders, effectiveURL: String) {
        self.status = status
        self.headers = headers
        self.effectiveURL = effectiveURL
    }

    /// `Content-Length` in bytes, when present and a valid number.
    public var contentLength: Int64? {
        headers["Content-Length"].flatMap { Int64(decimalDigits: Substring($0).trimmingSpaces()) }
    }

    /// `Content-Range`, when present and well formed.
    public var contentRange: ContentRange? {
        headers["Content-Range"].flatMap(ContentRange.init(parsing:))
    }

    /// Whether the server said `Accept-Ranges: bytes`. A 206 response proves range
    /// support whatever this says.
    public var acceptsByteRanges: Bool {
        headers.values(for: "Accept-Ranges").contains { $0.lowercased().contains("bytes") }
    }

    /// The entity tag, as sent (quotes and any `W/` prefix kept).
    public var etag: String? { headers["ETag"] }

    /// Whether the entity tag is a strong one (not `W/`), usable with `If-Range`.
    public var hasStrongETag: Bool {
        guard let etag else { return false }
        return !etag.hasPrefix("W/")
    }

    /// `Last-Modified`, as sent.
    public var lastModified: String? { headers["Last-Modified"] }

    /// `Content-Type`, as sent (parameters kept).
    public var contentType: String? { headers["Content-Type"] }

    /// `Content-Encoding` in lower case; nil when absent or `identity`.
    public var contentEncoding: String? {
        guard let value = headers["Content-Encoding"]?.lowercased(), value != "identity", !value.isEmpty
        else { return nil }
        return value
    }

    /// The file name from `Content-Disposition` (`filename*` preferred over `filename`),
    /// exactly as the server gave it: callers must sanitise it before using it as a path.
    public var contentDispositionFileName: String? {
        headers["Content-Disposition"].flatMap(ContentDisposition.fileName(in:))
    }

    /// Whether the status is in 200...299.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// `Retry-After` in seconds from `now` (seconds since 1970), whether sent as seconds or as an
    /// HTTP date; nil when absent or unreadable, never negative.
    public func retryAfter(now: Double) -> Double? {
        guard let raw = headers["Retry-After"] else { return nil }
        let value = Substring(raw).trimmingSpaces()
        if let seconds = Int64(decimalDigits: value) { return Double(seconds) }
        return HTTPDate.secondsSince1970(String(value)).map { max(0, $0 - now) }
    }

    /// The status with its reason, e.g. `404 Not Found`.
    public var statusText: String {
        let reason: String =
            switch status {
            case 400: "Bad Request"
            case 401: "Unauthorized"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 408: "Request Timeout"
            case 410: "Gone"
            case 416: "Range Not Satisfiable"
            case 429: "Too Many Requests"
            case 500: "Internal Server Error"
            case 502: "Bad Gateway"
            case 503: "Service Unavailable"
            case 504: "Gateway Timeout"
            default: ""
            }
        return reason.isEmpty ? "\(status)" : "\(status) \(reason)"
    }
}

/// Parses the file name parameters of a `Content-Disposition` value (RFC 6266).
enum ContentDisposition {
    static func fileName(in value: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in splitParameters(value).dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = parameter[..<equals].trimmingSpaces().lowercased()
            let raw = parameter[parameter.index(after: equals)...].trimmingSpaces()
            if name == "filename" {
                plain = unquote(raw)
            } else if name == "filename*" {
                extended = decodeExtended(raw)
            }
        }
        let name = extended ?? plain
        return (name?.isEmpty ?? true) ? nil : name
    }

    /// Splits on `;` outside quoted strings.
    private static func splitParameters(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var escaped = false
        for index in value.indices {
            let c = value[index]
            if escaped { escaped = false; continue }
            if c == "\\" && quoted {
                escaped = true
            } else if c == "\"" {
                quoted.toggle()
            } else if c == ";" && !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        parts.append(value[start...])
        return parts
    }

    private static func unquote(_ raw: Substring) -> String {
        guard raw.count >= 2, raw.first == "\"", raw.last == "\"" else { return String(raw) }
        var result = ""
        var escaped = false
        for c in raw.dropFirst().dropLast() {
            if escaped { result.append(c); escaped = false } else if c == "\\" { escaped = true } else { result.append(c) }
        }
        return result
    }

    /// `UTF-8'lang'percent-encoded` (RFC 8187); only UTF-8 and ISO-8859-1 are accepted.
    private static func decodeExtended(_ raw: Substring) -> String? {
        let parts = raw.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = parts[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        switch charset {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }
}
