/// What the answer to a range request (`Range: bytes=START-...`) says, checked before any of its
/// bytes is used: the one rule for downloads' probes, resumes and segments and for the player's
/// seeks. Only a 206 whose `Content-Range` starts exactly at `START` (and, where the caller
/// knows the file's size, is of that size) carries the bytes asked for; a 200 carries the
/// whole body from byte 0 (no ranges here, or, after `If-Range`, a changed file).
public enum RangeAnswer: Sendable, Equatable {
    /// A 206 from the byte asked for, of the expected total where one was given.
    case partial(ContentRange)
    /// A 200: the whole body, from byte 0.
    case whole
    /// A 206 that does not start where asked, or without a valid `Content-Range`; the header
    /// as sent (nil when absent).
    case wrongRange(contentRange: String?)
    /// A 206 from the byte asked for, but of another size than expected (nil: `*`).
    case wrongTotal(Int64?)
    /// Any other status (an error, a 416, another 2xx).
    case otherStatus(Int)

    /// Checks `head` as the answer to a request for bytes from `start`, of a file of
    /// `expectedTotal` bytes when that is known.
    public init(_ head: HTTPResponseHead, start: Int64, expectedTotal: Int64? = nil) {
        switch head.status {
        case 206:
            guard let contentRange = head.contentRange, contentRange.range?.lowerBound == start else {
                self = .wrongRange(contentRange: head.headers["Content-Range"])
                return
            }
            if let expectedTotal, contentRange.total != expectedTotal {
                self = .wrongTotal(contentRange.total)
            } else {
                self = .partial(contentRange)
            }
        case 200:
            self = .whole
        default:
            self = .otherStatus(head.status)
        }
    }
}
