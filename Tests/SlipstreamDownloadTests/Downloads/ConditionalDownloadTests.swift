@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// `timestamping`'s decisions, without I/O: the probe asks only if the file changed, and a 304
/// ends the download with the file left alone.
@Suite struct ConditionalDownloadTests {
    typealias Machine = DownloadStateMachine

    static let existing = FileStamp(size: 1234, modified: 784_111_777, etag: "\"abc\"")

    func machine() -> Machine {
        var settings = Machine.Settings(url: "http://h/f")
        settings.expectedPath = "f"
        return Machine(settings: settings, seed: 1)
    }

    @Test func aNotModifiedAnswerEndsWithTheFileLeftAlone() {
        var machine = machine()
        let first = machine.start(resume: nil, existing: Self.existing, at: 0)
        guard case .request(let request)? = first.first else { Issue.record("no request: \(first)"); return }
        #expect(request.unlessUnchanged == Self.existing && request.start == 0)
        let answer = machine.head(
            HTTPResponseHead(status: 304, headers: [:], effectiveURL: "http://h/f"), on: request.connection, wallClock: 0)
        guard case .verdict(.finish, let actions) = answer else { Issue.record("not finished: \(answer)"); return }
        #expect(actions.isEmpty)
        let ended = machine.transferEnded(request.connection, error: nil, at: 0.1)
        #expect(ended.contains { if case .finishWriter = $0 { true } else { false } })
        let finished = machine.writerFinished(keptRecords: false, at: 0.2)
        let outcome = finished.compactMap { if case .finish(let outcome) = $0 { outcome } else { nil } }.first
        guard case .success(let result)? = outcome else { Issue.record("no success: \(finished)"); return }
        #expect(result.notModified && result.path == "f" && result.bytes == 1234 && result.bytesReceived == 0)
        // Nothing of the file is touched: no discard that removes files, no rename.
        #expect(!finished.contains { if case .complete = $0 { true } else { false } })
        #expect(!finished.contains { if case .discard(true) = $0 { true } else { false } })
    }

    @Test func aChangedFileIsFetchedAsUsual() {
        var machine = machine()
        let started = machine.start(resume: nil, existing: Self.existing, at: 0)
        guard case .request(let request)? = started.first else { Issue.record("no request: \(started)"); return }
        let head = HTTPResponseHead(
            status: 206, headers: ["Content-Range": "bytes 0-99/100", "Content-Length": "100"], effectiveURL: "http://h/f")
        guard case .open(let opening) = machine.head(head, on: request.connection, wallClock: 0) else {
            Issue.record("no file opened")
            return
        }
        #expect(opening.size == 100 && !machine.notModified)
    }

    /// A 304 nobody asked for is an unusable answer, not "unchanged".
    @Test func aNotModifiedAnswerWithoutAConditionIsAnError() {
        var machine = machine()
        let started = machine.start(resume: nil, at: 0)
        guard case .request(let request)? = started.first else { Issue.record("no request: \(started)"); return }
        #expect(request.unlessUnchanged == nil)
        let answer = machine.head(
            HTTPResponseHead(status: 304, headers: [:], effectiveURL: "http://h/f"), on: request.connection, wallClock: 0)
        guard case .verdict(.abort(let error), _) = answer else { Issue.record("not refused: \(answer)"); return }
        #expect(error.status == 304)
    }

    @Test func httpDatesBothWays() {
        #expect(HTTPDate.text(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.secondsSince1970(HTTPDate.text(secondsSince1970: 1_700_000_000)) == 1_700_000_000)
        #expect(HTTPDate.text(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
