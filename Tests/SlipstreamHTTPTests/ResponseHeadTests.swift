import Testing
@testable import SlipstreamHTTP

@Suite struct ResponseHeadTests {
    @Test(arguments: [
        ("bytes 0-499/1234", ContentRange(range: 0...499, total: 1234)),
        ("bytes 500-1233/*", ContentRange(range: 500...1233, total: nil)),
        ("bytes */1234", ContentRange(range: nil, total: 1234)),
        ("Bytes  7-7/8 ", ContentRange(range: 7...7, total: 8)),
        ("BYTES 0-9223372036854775806/9223372036854775807", ContentRange(range: 0...9_223_372_036_854_775_806, total: .max)),
        ("\tbytes 1-2 / 3", ContentRange(range: 1...2, total: 3)),
    ])
    func contentRangeParses(text: String, expected: ContentRange) {
        #expect(ContentRange(parsing: text) == expected)
    }

    @Test(arguments: [
        "bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes 0-1", "bytes */*", "bytes -1-2/3", "bytes 0-+1/3", "",
        "bytes\u{0}0-1/2", "bytes", " \t ", "bytes 0-1/9223372036854775808", "bytes 0-1/1x", "bytes\t0-1/2",
        "bytés 0-1/2", "bytes 0-1/١٢",
    ])
    func contentRangeRejects(text: String) {
        #expect(ContentRange(parsing: text) == nil)
    }

    @Test func headerLookupIgnoresCaseAndKeepsRepeats() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "set-cookie", value: "b=2")
        headers.add(name: "ETag", value: "\"x\"")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(headers["etag"] == "\"x\"")
        headers.remove(name: "SET-cookie")
        #expect(headers.count == 1)
    }

    @Test(
        arguments: [
            ("attachment; filename=\"report.pdf\"", "report.pdf"),
            ("attachment; filename=plain.bin", "plain.bin"),
            ("attachment; filename=\"a\\\"b.txt\"", "a\"b.txt"),
            ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt", "€ rates.txt"),
            ("inline; filename*=iso-8859-1'en'%A3.txt", "£.txt"),
            ("attachment; note=\"x; filename=fake\"; filename=\"real\"", "real"),
            ("attachment", nil),
        ] as [(String, String?)])
    func contentDispositionFileName(value: String, expected: String?) {
        let head = HTTPResponseHead(status: 200, headers: ["Content-Disposition": value], effectiveURL: "http://x/")
        #expect(head.contentDispositionFileName == expected)
    }

    @Test func parsedFields() {
        let head = HTTPResponseHead(
            status: 206,
            headers: [
                "content-length": "10", "Content-Range": "bytes 0-9/100", "Accept-Ranges": "bytes",
                "ETag": "W/\"weak\"", "Content-Encoding": "gzip", "Last-Modified": "Sun, 29 Nov 2026 15:23:04 GMT",
            ], effectiveURL: "http://x/")
        #expect(head.contentLength == 10)
        #expect(head.contentRange == ContentRange(range: 0...9, total: 100))
        #expect(head.acceptsByteRanges)
        #expect(!head.hasStrongETag)
        #expect(head.contentEncoding == "gzip")
        #expect(head.lastModified == "Sun, 29 Nov 2026 15:23:04 GMT")
    }
}

/// The one range-answer rule and the one retry rule, shared by downloads and the player.
@Suite struct RangeAnswerTests {
    static func head(_ status: Int, _ contentRange: String? = nil) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        if let contentRange { headers.add(name: "Content-Range", value: contentRange) }
        return HTTPResponseHead(status: status, headers: headers, effectiveURL: "http://h/f")
    }

    @Test(
        arguments: [
            (206, "bytes 100-199/1000", Int64?.some(1000), RangeAnswer.partial(ContentRange(range: 100...199, total: 1000))),
            (206, "bytes 100-999/*", nil, .partial(ContentRange(range: 100...999, total: nil))),
            (206, "bytes 100-999/*", 1000, .wrongTotal(nil)),
            (206, "bytes 100-199/2000", 1000, .wrongTotal(2000)),
            (206, "bytes 0-199/1000", 1000, .wrongRange(contentRange: "bytes 0-199/1000")),
            (206, "bytes 101-199/1000", nil, .wrongRange(contentRange: "bytes 101-199/1000")),
            (206, "bytes */1000", 1000, .wrongRange(contentRange: "bytes */1000")),
            (206, "nonsense", nil, .wrongRange(contentRange: "nonsense")),
            (200, nil, 1000, .whole),
            (416, "bytes */1000", 1000, .otherStatus(416)),
            (204, nil, nil, .otherStatus(204)),
        ] as [(Int, String?, Int64?, RangeAnswer)])
    func answersToARequestFromByte100(status: Int, contentRange: String?, total: Int64?, expected: RangeAnswer) {
        #expect(RangeAnswer(Self.head(status, contentRange), start: 100, expectedTotal: total) == expected)
    }

    @Test func aMissingContentRangeIsAWrongRange() {
        #expect(RangeAnswer(Self.head(206), start: 0) == .wrongRange(contentRange: nil))
    }

    @Test(
        arguments: [
            (HTTPError.Code.resolve, nil, true), (.connect, nil, true), (.timeout, nil, true),
            (.connectionLost, nil, true), (.proxy, nil, true), (.other, nil, true),
            (.httpStatus, 408, true), (.httpStatus, 429, true), (.httpStatus, 500, true), (.httpStatus, 503, true),
            (.httpStatus, 404, false), (.httpStatus, 403, false), (.httpStatus, nil, false),
            (.tls, nil, false), (.malformedURL, nil, false), (.tooManyRedirects, nil, false),
            (.rangeNotHonoured, 206, false), (.cancelled, nil, false), (.writeFailed, nil, false),
        ] as [(HTTPError.Code, Int?, Bool)])
    func whatIsRetried(code: HTTPError.Code, status: Int?, retryable: Bool) {
        #expect(HTTPError(code, url: "u", message: "m", status: status).isRetryable == retryable)
    }
}
