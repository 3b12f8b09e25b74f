/// What `slipstream info` says about where the bytes came from: the file or URL, what the
/// server said about it, and how much was read.
struct InfoSourceSummary: Encodable {
    /// The local file, for a file.
    var file: String?
    /// The URL as given, for a URL.
    var url: String?
    /// The URL that answered, when redirects led elsewhere.
    var effectiveURL: String?
    /// The server's `Content-Type`.
    var contentType: String?
    /// Total bytes of the file, when known.
    var size: Int64?
    /// Whether the server answered a range request with the range; `nil` for a file.
    var acceptsRanges: Bool?
    /// Bytes read from the file or received from the server.
    var bytesRead: Int64 = 0
    /// Reads (file) or requests (URL) made.
    var requests = 0

    /// The summary as labelled values, for the text output.
    var textFields: [(label: String, value: String)] {
        var fields: [(label: String, value: String)] = []
        if let file { fields.append(("File", file)) }
        if let url { fields.append(("URL", url)) }
        if let effectiveURL { fields.append(("Redirected to", effectiveURL)) }
        if let contentType { fields.append(("Content-Type", contentType)) }
        fields.append(("Size", size.map { "\(Formatting.bytes($0)) (\($0) bytes)" } ?? "unknown"))
        if let acceptsRanges { fields.append(("Ranges", acceptsRanges ? "yes" : "no")) }
        let what = url == nil ? "read" : "request"
        fields.append(("Read", "\(Formatting.bytes(bytesRead)) in \(requests) \(what)\(requests == 1 ? "" : "s")"))
        return fields
    }
}
