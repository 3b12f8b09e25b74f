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
    static func from(head: HTTPResponseHead, url: String) -> Result<ProbeAnswer, HTTPError> {
        switch head.status {
        case 206:
            guard let contentRange = head.contentRange, let range = contentRange.range, range.lowerBound == 0 else {
                return .failure(HTTPError(.rangeNotHonoured, url: url,
                    message: "asked for bytes 0- but the server sent Content-Range \(head.headers["Content-Range"] ?? "(none)")",
                    status: 206))
            }
            // A compressed body is stored as sent and never split.
            if head.contentEncoding != nil {
                return .success(ProbeAnswer(size: head.contentLength))
            }
            if let total = contentRange.total, range.upperBound == total - 1 {
                return .success(ProbeAnswer(size: total, segmentedSize: total))
            }
            // `bytes 0-N/*` or a partial first answer: read it as one stream.
            return .success(ProbeAnswer(size: contentRange.total))
        case 200:
            return .success(ProbeAnswer(size: head.contentLength))
        case 416 where head.contentRange?.total == 0:
            return .success(ProbeAnswer(size: 0, isEmptyFile: true))
        default:
            return .failure(HTTPError(.httpStatus, url: url,
                message: "the server answered HTTP \(head.status)\(reason(head.status))", status: head.status))
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 401: " Unauthorized"
        case 403: " Forbidden"
        case 404: " Not Found"
        case 410: " Gone"
        case 416: " Range Not Satisfiable"
        case 429: " Too Many Requests"
        case 500: " Internal Server Error"
        case 502: " Bad Gateway"
        case 503: " Service Unavailable"
        default: ""
        }
    }
}
