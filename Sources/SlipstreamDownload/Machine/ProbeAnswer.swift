import SlipstreamHTTP

/// What the answer to the first request (`Range: bytes=0-`) says about a download. Pure.
struct ProbeAnswer: Equatable {
    /// The size when known.
    var size: Int64?
    /// The size when ranges work and the body is stored as sent, so it may be split.
    var segmentedSize: Int64?
    /// A 416 for `bytes=0-` on an empty file: nothing to fetch.
    var isEmptyFile = false

    /// Reads the head; a failure for a status or range answer that cannot be used.
    static func from(head: HTTPResponseHead, url: String, now: Double) -> Result<ProbeAnswer, HTTPError> {
        switch RangeAnswer(head, start: 0) {
        case .partial(let contentRange):
            // A compressed body is stored as sent and never split.
            if head.contentEncoding != nil {
                return .success(ProbeAnswer(size: head.contentLength))
            }
            if let total = contentRange.total, contentRange.range?.upperBound == total - 1 {
                return .success(ProbeAnswer(size: total, segmentedSize: total))
            }
            // `bytes 0-N/*` or a partial first answer: read it as one stream.
            return .success(ProbeAnswer(size: contentRange.total))
        case .wrongRange(let contentRange):
            return .failure(
                HTTPError(
                    .rangeNotHonoured, url: url,
                    message: "asked for bytes 0- but the server sent Content-Range \(contentRange ?? "(none)")", status: 206))
        case .whole:
            return .success(ProbeAnswer(size: head.contentLength))
        case .otherStatus(416) where head.contentRange?.total == 0:
            return .success(ProbeAnswer(size: 0, isEmptyFile: true))
        case .wrongTotal, .otherStatus:
            return .failure(statusError(head, url: url, now: now))
        }
    }

    /// The error for an unusable status, with the server's `Retry-After`.
    static func statusError(_ head: HTTPResponseHead, url: String, now: Double) -> HTTPError {
        HTTPError(
            .httpStatus, url: url, message: "the server answered HTTP \(head.statusText)",
            status: head.status, retryAfter: head.retryAfter(now: now))
    }
}

/// What the answer to a resuming first request (`Range: bytes=F-` with `If-Range`) says. Pure.
enum ResumeAnswer: Equatable {
    /// The same remote file: carry on from `F`.
    case resume
    /// A different file (or one the server cannot prove is the same): start over, saying why.
    case changed(String)
    /// An unusable answer.
    case failure(HTTPError)

    static func from(head: HTTPResponseHead, record: ControlFile, firstMissing: Int64, url: String, now: Double) -> ResumeAnswer {
        switch RangeAnswer(head, start: firstMissing, expectedTotal: record.size) {
        case .partial:
            if let old = record.etag, let new = head.etag, old != new {
                return .changed("the remote file's ETag changed from \(old) to \(new)")
            }
            if record.etag == nil, let old = record.lastModified, let new = head.lastModified, old != new {
                return .changed("the remote file's Last-Modified changed from \(old) to \(new)")
            }
            if head.contentEncoding != nil {
                return .changed("the server now sends the file compressed")
            }
            return .resume
        case .wrongRange(let contentRange):
            return .changed(
                "the server answered the resume request with Content-Range "
                    + "\(contentRange ?? "(none)") instead of bytes \(firstMissing)-")
        case .wrongTotal(let total):
            return .changed("the remote file is now \(total.map { "\($0) bytes" } ?? "of unknown size"), not \(record.size)")
        case .whole:
            return .changed("the remote file changed since the download started (the server sent all of it)")
        case .otherStatus(416):
            return .changed("the remote file is shorter than before")
        case .otherStatus:
            return .failure(ProbeAnswer.statusError(head, url: url, now: now))
        }
    }
}
