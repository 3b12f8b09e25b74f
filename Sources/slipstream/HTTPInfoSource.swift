import SlipstreamHTTP

/// A URL, read with range requests where the server answers them (checked on every answer: a
/// 206 whose `Content-Range` starts where asked), else from the start with a bounded body.
struct HTTPInfoSource: InfoSource {
    /// The request every read starts from: URL, proxy, extra headers.
    private let template: HTTPRequest
    /// What is known about the URL and what has been read.
    private(set) var summary: InfoSourceSummary

    /// A source for `url`, through `proxy` when given, sending `headers` with every request.
    init(url: String, proxy: String?, headers: HTTPHeaders) {
        var template = HTTPRequest(url: url)
        template.proxy = proxy
        template.headers = headers
        self.template = template
        summary = InfoSourceSummary(url: url)
    }

    /// Whether the server has answered a range request with the range.
    var canSeek: Bool { summary.acceptsRanges == true }

    /// Asks for bytes `offset` to `offset + count - 1`, or, once the server has answered a
    /// range with the whole file, for the first `offset + count` bytes of it.
    mutating func read(at offset: Int64, count: Int) async throws(CommandError) -> [UInt8] {
        let ranged = summary.acceptsRanges != false
        var request = template
        if ranged { request.range = .init(start: offset, end: offset + Int64(count) - 1) }
        let response: HTTPResponse
        do {
            response = try await HTTPEngine.shared.fetch(request, maxBodyBytes: ranged ? count : Int(offset) + count)
        } catch {
            throw CommandError(status: ExitStatus(error), message: error.description)
        }
        let head = response.head
        summary.requests += 1
        summary.bytesRead += Int64(response.body.count)
        if summary.requests == 1 {
            summary.contentType = head.contentType
            if head.effectiveURL != template.url, !head.effectiveURL.isEmpty { summary.effectiveURL = head.effectiveURL }
        }
        switch head.status {
        case 206:
            guard let contentRange = head.contentRange, contentRange.range?.lowerBound == offset else {
                throw failure("asked for bytes \(request.range!) but the server sent Content-Range \(head.headers["Content-Range"] ?? "(none)")")
            }
            summary.acceptsRanges = true
            summary.size = contentRange.total ?? summary.size
            return response.body
        case 200 where summary.acceptsRanges != true:
            summary.acceptsRanges = false
            summary.size = head.contentEncoding == nil ? head.contentLength : nil
            return Array(response.body.dropFirst(Int(offset)))
        case 200:
            throw failure("asked for bytes \(request.range!) but the server sent the whole file, after answering earlier ranges")
        case 416 where offset == 0 && head.contentRange?.total == 0:
            summary.acceptsRanges = true
            summary.size = 0
            return []
        default:
            throw failure("the server answered HTTP \(head.statusText)")
        }
    }

    /// An HTTP failure naming the URL.
    private func failure(_ message: String) -> CommandError {
        CommandError(status: .http, message: "\(template.url): \(message)")
    }
}
