@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// The pure rules a download's first answer and its retries go by: `ProbeAnswer` (what the
/// answer to `bytes=0-` says), `ResumeAnswer` (whether a resumed file is still the same) and
/// `RetryPolicy` (how long to wait).
@Suite struct AnswerRulesTests {
    static func head(_ status: Int, _ fields: [(String, String)] = []) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPResponseHead(status: status, headers: headers, effectiveURL: "http://h/f")
    }

    @Test(
        arguments: [
            // A whole file from byte 0: split it.
            (head(206, [("Content-Range", "bytes 0-999/1000")]), ProbeAnswer(size: 1000, segmentedSize: 1000)),
            // Only part of the file, or of unknown size: one stream.
            (head(206, [("Content-Range", "bytes 0-499/1000")]), ProbeAnswer(size: 1000)),
            (head(206, [("Content-Range", "bytes 0-499/*")]), ProbeAnswer(size: nil)),
            // Compressed as sent: never split.
            (
                head(206, [("Content-Range", "bytes 0-999/1000"), ("Content-Encoding", "gzip"), ("Content-Length", "400")]),
                ProbeAnswer(size: 400)
            ),
            (head(200, [("Content-Length", "1000")]), ProbeAnswer(size: 1000)),
            (head(200), ProbeAnswer(size: nil)),
            (head(416, [("Content-Range", "bytes */0")]), ProbeAnswer(size: 0, isEmptyFile: true)),
        ] as [(HTTPResponseHead, ProbeAnswer)])
    func usableFirstAnswers(head: HTTPResponseHead, expected: ProbeAnswer) {
        #expect(ProbeAnswer.from(head: head, url: "http://h/f", now: 0) == .success(expected))
    }

    @Test(
        arguments: [
            (head(206, [("Content-Range", "bytes 10-999/1000")]), HTTPError.Code.rangeNotHonoured),
            (head(206), .rangeNotHonoured),
            (head(416, [("Content-Range", "bytes */1000")]), .httpStatus),
            (head(404), .httpStatus),
            (head(204), .httpStatus),
        ] as [(HTTPResponseHead, HTTPError.Code)])
    func unusableFirstAnswers(head: HTTPResponseHead, code: HTTPError.Code) {
        guard case .failure(let error) = ProbeAnswer.from(head: head, url: "http://h/f", now: 0) else {
            Issue.record("\(head.status) was taken")
            return
        }
        #expect(error.code == code)
    }

    @Test func aStatusErrorKeepsRetryAfterInSecondsOrAsADate() {
        let seconds = ProbeAnswer.statusError(Self.head(503, [("Retry-After", "7")]), url: "u", now: 0)
        #expect(seconds.retryAfter == 7)
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 seconds after 1970.
        let date = ProbeAnswer.statusError(
            Self.head(429, [("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            url: "u", now: 784_111_770)
        #expect(date.retryAfter == 7)
        #expect(date.status == 429)
    }

    static let record = ControlFile(url: "http://h/f", size: 1000, etag: "\"a\"", lastModified: "Mon, 01 Jan 2026 00:00:00 GMT")

    @Test(
        arguments: [
            (head(206, [("Content-Range", "bytes 400-999/1000"), ("ETag", "\"a\"")]), "resume"),
            (head(206, [("Content-Range", "bytes 400-999/1000")]), "resume"),
            (head(206, [("Content-Range", "bytes 400-999/1000"), ("ETag", "\"b\"")]), "ETag changed"),
            (head(206, [("Content-Range", "bytes 400-1999/2000"), ("ETag", "\"a\"")]), "now 2000 bytes"),
            (head(206, [("Content-Range", "bytes 0-999/1000")]), "instead of bytes 400-"),
            (head(206, [("Content-Range", "bytes 400-999/1000"), ("Content-Encoding", "gzip")]), "compressed"),
            (head(200, [("Content-Length", "1000")]), "sent all of it"),
            (head(416, [("Content-Range", "bytes */300")]), "shorter"),
            (head(500), "failure"),
        ] as [(HTTPResponseHead, String)])
    func resumeAnswers(head: HTTPResponseHead, expected: String) {
        let answer = ResumeAnswer.from(head: head, record: Self.record, firstMissing: 400, url: "http://h/f", now: 0)
        switch answer {
        case .resume: #expect(expected == "resume")
        case .changed(let reason): #expect(reason.contains(expected), "\(reason)")
        case .failure(let error): #expect(expected == "failure" && error.status == 500)
        }
    }

    @Test func withoutAnETagLastModifiedDecides() {
        let record = ControlFile(url: "http://h/f", size: 1000, etag: nil, lastModified: "Mon, 01 Jan 2026 00:00:00 GMT")
        let later = Self.head(206, [("Content-Range", "bytes 400-999/1000"), ("Last-Modified", "Tue, 02 Jan 2026 00:00:00 GMT")])
        guard case .changed(let reason) = ResumeAnswer.from(head: later, record: record, firstMissing: 400, url: "u", now: 0) else {
            Issue.record("a later Last-Modified resumed")
            return
        }
        #expect(reason.contains("Last-Modified changed"))
    }

    @Test func retryDelaysDoubleWithJitterUpToTheCap() {
        let policy = RetryPolicy(retries: 5, baseDelay: 0.5, maxDelay: 30)
        // Without jitter (0), half the doubled delay; with full jitter (1), all of it.
        #expect(policy.delay(attempt: 1, retryAfter: nil, jitter: 1) == 0.5)
        #expect(policy.delay(attempt: 1, retryAfter: nil, jitter: 0) == 0.25)
        #expect(policy.delay(attempt: 3, retryAfter: nil, jitter: 1) == 2)
        #expect(policy.delay(attempt: 20, retryAfter: nil, jitter: 1) == 30)
        #expect(policy.delay(attempt: 1000, retryAfter: nil, jitter: 0.5) == 22.5)
        // Retry-After is a floor, the cap a ceiling.
        #expect(policy.delay(attempt: 1, retryAfter: 7, jitter: 0) == 7)
        #expect(policy.delay(attempt: 1, retryAfter: 3600, jitter: 0) == 30)
    }
}
