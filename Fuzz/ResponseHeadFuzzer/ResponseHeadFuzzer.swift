// The libFuzzer target for what a server says in a response head: the header lines as the
// engine reads them (`CurlTransfer.onHeaderLine`, fed the lines libcurl would hand it), and
// every field parsed from them: `Content-Length`, `Content-Range` (and the range answer built
// on it), `Content-Disposition` file names and the local name made of them, `Retry-After` in
// seconds or as an HTTP date.

import FuzzSupport
import Synchronization
@testable import SlipstreamDownload
@testable import SlipstreamHTTP

/// The input is a response head as sent: lines ending in `\n` (usually `\r\n`); the status
/// comes from its last `HTTP/` line (206 when there is none).
func fuzzResponseHead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated().map { index, line in
        // libcurl hands over each line with its line ending; the last one may have none.
        index == 0 && line.isEmpty ? [] : Array(line) + (line.endIndex < input.endIndex ? [UInt8(ascii: "\n")] : [])
    }
    let head = receivedHead(lines)
    require(Array(head.headers) == expectedFields(lines), "the fields read differ from the lines:\n\(Array(head.headers))")
    let status = statusCode(lines)
    checkFields(HTTPResponseHead(status: status, headers: head.headers, effectiveURL: head.effectiveURL))
    // The whole input and every value, as each kind of field: what a parser meets in one field
    // a server may send in any.
    for text in [String(decoding: input, as: UTF8.self)] + head.headers.map(\.value) {
        checkContentRange(text)
        checkDate(text)
        checkName(text)
    }
    return 0
}

/// The head a transfer hands its sink after receiving `lines`.
func receivedHead(_ lines: [[UInt8]]) -> HTTPResponseHead {
    let sink = HeadSink()
    guard let transfer = CurlTransfer(id: 1, request: HTTPRequest(url: "http://fuzz.invalid/a/file.bin"), sink: sink) else {
        fatalError("curl_easy_init failed")
    }
    for line in lines where !line.isEmpty {
        _ = line.withUnsafeBytes { transfer.onHeaderLine($0) }  // always true for HTTP
    }
    _ = transfer.onBody(UnsafeRawBufferPointer(start: nil, count: 0))
    guard let head = sink.head.withLock({ $0 }) else { fatalError("no head was delivered") }
    return head
}

/// A sink that keeps the head it is given.
final class HeadSink: HTTPSink {
    let head = Mutex<HTTPResponseHead?>(nil)

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        self.head.withLock { $0 = head }
        return .proceed
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision { .proceed }

    func complete(_ result: Result<Void, HTTPError>) {}
}

/// The fields of the last response in `lines`, read the plain way: a line starting with
/// `HTTP/` starts a response; in any other line with a colon, the name is what comes before
/// the first colon and the value what comes after it, without the line ending and without
/// spaces and tabs around it.
func expectedFields(_ lines: [[UInt8]]) -> [HTTPHeaderField] {
    var fields: [HTTPHeaderField] = []
    for line in lines {
        var text = line[...]
        while let last = text.last, last == 13 || last == 10 { text.removeLast() }
        if text.starts(with: "HTTP/".utf8) || text.starts(with: "ICY ".utf8) {
            fields = []
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            var value = text[(colon + 1)...]
            while let first = value.first, first == 32 || first == 9 { value.removeFirst() }
            while let last = value.last, last == 32 || last == 9 { value.removeLast() }
            fields.append(
                HTTPHeaderField(
                    name: String(decoding: text[..<colon], as: UTF8.self),
                    // Values are UTF-8 when valid, else Windows-1252 (radio stations send both).
                    value: String(utf8OrWindows1252: value)))
        }
    }
    return fields
}

/// The status code of the last `HTTP/x yyy` line, or 206.
func statusCode(_ lines: [[UInt8]]) -> Int {
    guard let line = lines.last(where: { $0.starts(with: "HTTP/".utf8) }) else { return 206 }
    let parts = line.split(separator: UInt8(ascii: " "))
    guard parts.count > 1, parts[1].count == 3 else { return 0 }
    return Int(String(decoding: parts[1], as: UTF8.self)) ?? 0
}

/// Every parsed field of `head` makes sense, and the range answer keeps its promise.
func checkFields(_ head: HTTPResponseHead) {
    if let length = head.contentLength { require(length >= 0, "Content-Length \(length)") }
    if let contentRange = head.contentRange { check(contentRange) }
    let starts = [0, 1, head.contentRange?.range?.lowerBound ?? 0]
    let totals = [nil, 100, head.contentRange?.total]
    for start in starts {
        for total in totals {
            switch RangeAnswer(head, start: start, expectedTotal: total) {
            case .partial(let range):
                require(
                    head.status == 206 && range == head.contentRange && range.range?.lowerBound == start
                        && (total == nil || range.total == total), "a wrong partial answer: \(range) for \(start), \(total as Any)")
            case .whole:
                require(head.status == 200, "a whole answer from status \(head.status)")
            case .wrongRange, .wrongTotal:
                require(head.status == 206, "a wrong range from status \(head.status)")
            case .otherStatus(let status):
                require(status == head.status && status != 200 && status != 206, "other status \(status)")
            }
        }
    }
    for now in [0, 1e9, 4e9] {
        if let delay = head.retryAfter(now: now) { require(delay.isFinite && delay >= 0, "Retry-After \(delay)") }
    }
    if let name = head.contentDispositionFileName {
        require(!name.isEmpty, "an empty Content-Disposition name")
        checkName(name)
    }
    for url in [head.effectiveURL] + head.headers.values(for: "Location") {
        let chosen = OutputName.choose(contentDisposition: head.contentDispositionFileName, url: url)
        require(isSafe(chosen), "the chosen name \(chosen.debugDescription) is not a safe file name")
    }
    _ = (head.acceptsByteRanges, head.hasStrongETag, head.contentEncoding, head.statusText)
}

/// `text` as a `Content-Range` value: when it parses, the range makes sense and reads back.
func checkContentRange(_ text: String) {
    guard let contentRange = ContentRange(parsing: text) else { return }
    check(contentRange)
}

func check(_ contentRange: ContentRange) {
    if let range = contentRange.range {
        require(range.lowerBound >= 0, "a range from \(range.lowerBound)")
        if let total = contentRange.total { require(range.upperBound < total, "\(range) beyond \(total)") }
    } else {
        require(contentRange.total != nil, "neither a range nor a total")
    }
    if let total = contentRange.total { require(total >= 0, "total \(total)") }
    let range = contentRange.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*"
    let written = "bytes \(range)/\(contentRange.total.map(String.init) ?? "*")"
    require(ContentRange(parsing: written) == contentRange, "\(written) does not read back as \(contentRange)")
}

/// `text` as an HTTP date: a time, when it is one.
func checkDate(_ text: String) {
    if let seconds = HTTPDate.secondsSince1970(text) { require(seconds.isFinite, "date \(seconds)") }
}

/// `text` as a name from a server: cleaned, it is a safe file name, and cleaning it again
/// changes nothing.
func checkName(_ text: String) {
    guard let name = OutputName.sanitize(text) else { return }
    require(isSafe(name), "the sanitized name \(name.debugDescription) (from \(text.debugDescription)) is not safe")
    require(OutputName.sanitize(name) == name, "sanitizing \(name.debugDescription) again changes it")
}

/// A name that stays inside its folder and is not hidden: not empty, at most 255 bytes, no
/// separator or control character, no leading dot, no space at either end. Judged as bytes, as
/// the file system sees it (a "/" or "." followed by a combining mark is another Character).
func isSafe(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard let first = bytes.first, let last = bytes.last, bytes.count <= 255 else { return false }
    return first != UInt8(ascii: ".") && first != UInt8(ascii: " ") && last != UInt8(ascii: " ")
        && !bytes.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F }
}

/// First inputs: heads nginx and other servers send, and some that lie.
let responseHeadSeeds: [[UInt8]] = [
    "HTTP/1.1 206 Partial Content\r\nServer: nginx\r\nContent-Length: 1000\r\nContent-Range: bytes 0-999/5000\r\n"
        + "ETag: \"5f2b-1a\"\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\nAccept-Ranges: bytes\r\n\r\n",
    "HTTP/1.1 301 Moved\r\nLocation: http://h/b/\r\n\r\nHTTP/2 200\r\ncontent-length: 12\r\n"
        + "content-disposition: attachment; filename=\"a \\\"b\\\".iso\"; filename*=UTF-8''%E2%82%AC%20rates.iso\r\n\r\n",
    "HTTP/1.1 503 Busy\r\nRetry-After: 120\r\n\r\n",
    "HTTP/1.1 429 Slow down\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n",
    "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */5000\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Disposition: inline; filename=\"../../etc/passwd\"\r\nLocation: https://h/%2e%2e/x?y\r\n\r\n",
    "HTTP/1.1 206\r\nContent-Range: BYTES 10-9/5\r\nContent-Range:\tbytes 1-2/*\r\nContent-Disposition: x; filename*=iso-8859-1'en'%A3\r\n",
].map { Array($0.utf8) }
