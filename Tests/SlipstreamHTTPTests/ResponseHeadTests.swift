import Testing
@testable import SlipstreamHTTP

@Suite struct ResponseHeadTests {
    @Test(arguments: [
        ("bytes 0-499/1234", ContentRange(range: 0...499, total: 1234)),
        ("bytes 500-1233/*", ContentRange(range: 500...1233, total: nil)),
        ("bytes */1234", ContentRange(range: nil, total: 1234)),
        ("Bytes  7-7/8 ", ContentRange(range: 7...7, total: 8)),
        ("BYTES 0-9223372036854775806/9223372036854775807", ContentRange(range: 0...9223372036854775806, total: .max)),
        ("\tbytes 1-2 / 3", ContentRange(range: 1...2, total: 3)),
    ])
    func contentRangeParses(text: String, expected: ContentRange) {
        #expect(ContentRange(parsing: text) == expected)
    }

    @Test(arguments: ["bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes 0-1", "bytes */*", "bytes -1-2/3", "bytes 0-+1/3", "",
                      "bytes\u{0}0-1/2", "bytes", " \t ", "bytes 0-1/9223372036854775808", "bytes 0-1/1x", "bytes\t0-1/2",
                      "bytés 0-1/2", "bytes 0-1/١٢"])
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

    @Test(arguments: [
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
        let head = HTTPResponseHead(status: 206, headers: [
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
