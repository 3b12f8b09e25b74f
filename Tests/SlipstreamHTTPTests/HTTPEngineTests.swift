import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamHTTP

@Suite struct HTTPEngineTests {
    let engine = HTTPEngine.shared

    @Test func rangeRequestAgainstNginx() async throws {
        let path = try TestNginx.makeFile("engine-1m.bin", size: 1 << 20)
        var request = HTTPRequest(url: try TestNginx.url("engine-1m.bin"))
        request.range = .init(start: 1000, end: 1999)
        let response = try await engine.fetch(request)
        #expect(response.head.status == 206)
        #expect(response.head.contentRange == ContentRange(range: 1000...1999, total: 1 << 20))
        #expect(response.head.contentLength == 1000)
        #expect(response.head.hasStrongETag)
        #expect(response.head.lastModified != nil)
        let source = try #require(FileManager.default.contents(atPath: path))
        #expect(response.body.elementsEqual(source[1000...1999]))
    }

    @Test func followsRedirectsAndReportsTheEffectiveURL() async throws {
        try TestNginx.makeFile("engine-small.bin", size: 100)
        let response = try await engine.fetch(HTTPRequest(url: try TestNginx.url("engine-small.bin", location: "moved")))
        #expect(response.head.status == 200)
        #expect(response.head.effectiveURL == (try TestNginx.url("engine-small.bin")))
        #expect(response.body.count == 100)
    }

    @Test func redirectLimit() async throws {
        let server = try TestHTTPServer { _ in .init(status: 302, headers: [("Location", "/again")]) }
        defer { server.stop() }
        var request = HTTPRequest(url: server.url("/start"))
        request.maxRedirects = 3
        await #expect(throws: HTTPError.self) { try await engine.fetch(request) }
        do {
            _ = try await engine.fetch(request)
        } catch {
            #expect(error.code == .tooManyRedirects)
        }
    }

    @Test func requestsGoThroughTheProxyWithTheirRanges() async throws {
        let path = try TestNginx.makeFile("engine-proxied.bin", size: 100_000)
        var request = HTTPRequest(url: try TestNginx.url("engine-proxied.bin"))
        request.proxy = try TestNginx.proxyURL()
        request.range = .init(start: 10, end: 19)
        let response = try await engine.fetch(request)
        #expect(response.head.headers["X-Slipstream-Proxy"] == "passed")
        #expect(response.head.status == 206)
        let source = try #require(FileManager.default.contents(atPath: path))
        #expect(response.body.elementsEqual(source[10...19]))
        // Without the proxy, the same request does not pass it.
        request.proxy = nil
        #expect(try await engine.fetch(request).head.headers["X-Slipstream-Proxy"] == nil)
    }

    @Test func statusIsReportedNotThrown() async throws {
        let response = try await engine.fetch(HTTPRequest(url: try TestNginx.url("no-such-file")))
        #expect(response.head.status == 404)
        #expect(!response.head.isSuccess)
    }

    @Test(arguments: [
        ("ftp://127.0.0.1/x", HTTPError.Code.unsupportedScheme),
        ("http://[::1", HTTPError.Code.malformedURL),
        ("http://127.0.0.1:1/refused", HTTPError.Code.connect),
    ])
    func transportErrors(url: String, code: HTTPError.Code) async {
        do {
            _ = try await engine.fetch(HTTPRequest(url: url))
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code == code)
            #expect(error.url == url)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func stallBeyondTheLowSpeedTimeTimesOut() async throws {
        let body = TestFiles.randomBytes(100_000)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(body, for: request)
            response.stallAfter = 1000
            return response
        }
        defer { server.stop() }
        var request = HTTPRequest(url: server.url("/stall"))
        request.lowSpeedTime = .seconds(1)
        do {
            _ = try await engine.fetch(request)
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == .timeout)
        }
    }

    @Test func connectionClosedMidBodyIsConnectionLost() async throws {
        let body = TestFiles.randomBytes(100_000)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(body, for: request)
            response.closeAfter = 5000
            return response
        }
        defer { server.stop() }
        do {
            _ = try await engine.fetch(HTTPRequest(url: server.url("/close")))
            Issue.record("expected connection lost")
        } catch {
            #expect(error.code == .connectionLost)
        }
    }

    @Test func sentHeadersAndIdentityEncoding() async throws {
        let server = try TestHTTPServer { request in
            .init(
                status: 200,
                body: Array(
                    "\(request.headers["accept-encoding"] ?? "-")|\(request.headers["x-test"] ?? "-")|\(request.headers["user-agent"] ?? "-")"
                        .utf8))
        }
        defer { server.stop() }
        var request = HTTPRequest(url: server.url("/echo"))
        request.headers.add(name: "X-Test", value: "yes")
        request.userAgent = "tester/1"
        let response = try await engine.fetch(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "identity|yes|tester/1")
    }

    /// `.proceedThenPause` takes the slice and stops the reading: only the rest of what libcurl
    /// had already read (less than its receive buffer) comes before the resume, then the body
    /// goes on, whole and in order.
    @Test func proceedThenPauseStopsReadingUntilResume() async throws {
        let path = try await TestNginx.makeFileOffPool("engine-4m.bin", size: 4 << 20)
        var request = HTTPRequest(url: try TestNginx.url("engine-4m.bin"))
        request.receiveBufferSize = 64 << 10
        let sink = TakingPausingSink()
        sink.resumeOnPause(engine.start(request, sink: sink))
        let result = await sink.completion()
        #expect(result.isSuccess, "\(result)")
        #expect(sink.pauses > 3)
        #expect(sink.mostAfterPause < request.receiveBufferSize, "\(sink.mostAfterPause) bytes came after a pause")
        let source = try #require(FileManager.default.contents(atPath: path))
        let same = sink.body.elementsEqual(source)
        #expect(same)
    }

    @Test func pauseDeliversTheSameBytesAgainAfterResume() async throws {
        let path = try await TestNginx.makeFileOffPool("engine-4m.bin", size: 4 << 20)
        let sink = PausingSink()
        // Every pause is answered by a resume from another thread (never from the Swift
        // concurrency pool, which a busy test run can hold for longer than nginx waits).
        let transfer = engine.start(HTTPRequest(url: try TestNginx.url("engine-4m.bin")), sink: sink)
        sink.resumeOnPause(transfer)
        let result = await sink.completion()
        #expect(sink.pauses > 3)
        #expect(result.isSuccess, "\(result)")
        let source = try #require(FileManager.default.contents(atPath: path))
        let same = sink.body.elementsEqual(source)
        #expect(same)
    }

    @Test(arguments: [true, false])
    func aSinkThatEndsTheTransferWhenResumedEndsIt(finish: Bool) async throws {
        try TestNginx.makeFile("engine-4m.bin", size: 4 << 20)
        let sink = EndAfterPauseSink(finish: finish)
        let transfer = engine.start(HTTPRequest(url: try TestNginx.url("engine-4m.bin")), sink: sink)
        while !sink.paused { try await Task.sleep(for: .milliseconds(5)) }
        // The held slice comes again from inside the resume, and the sink ends the transfer there.
        transfer.resume()
        while !sink.isComplete { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(sink.calls == 2)
        #expect(sink.result?.isSuccess == finish)
    }

    /// The I/O thread is woken only when it may be waiting: a request started while it waits
    /// must still be taken at once. Its idle wait is made a minute long, so that a missed
    /// wake-up would hold a request for a minute; each request's wait is measured from its
    /// start to its head, on the I/O thread (not from the test's task, which a loaded
    /// concurrency pool may run late).
    @Test func requestsStartedWhileTheIOThreadWaitsAreTakenAtOnce() async throws {
        try TestNginx.makeFile("engine-tiny.bin", size: 10)
        let url = try TestNginx.url("engine-tiny.bin")
        // Its own engine, so that no other test's traffic wakes it.
        let engine = HTTPEngine(configuration: .init(), idleWaitMilliseconds: 60_000)
        defer { engine.shutdown() }
        await expectHeadsAtOnce(from: engine, url: url, requests: 50)
    }

    /// Starts `requests` requests for `url` one after the other, each after the last ended, and
    /// expects each head within 30 s of its start (measured on the I/O thread), where a missed
    /// wake-up would hold it for the engine's idle wait or longer.
    private func expectHeadsAtOnce(from engine: HTTPEngine, url: String, requests: Int) async {
        for _ in 0..<requests {
            let sink = TimingSink(started: .now)
            engine.start(HTTPRequest(url: url), sink: sink)
            let (result, headAfter) = await sink.completion()
            #expect(result.isSuccess)
            guard let headAfter, headAfter < .seconds(30) else {
                Issue.record("the head came \(headAfter.map { "\($0)" } ?? "never") after the start: a wake-up was missed")
                return
            }
        }
    }

    @Test func cancellingOneTransferLeavesTheOthers() async throws {
        try TestNginx.makeFile("engine-8m.bin", size: 8 << 20)
        // Hours at 1 KiB/s: however long a loaded machine keeps this task from running (a run
        // at 64 KiB/s ended in the 128 s before the cancel came), only the cancel ends it.
        let slow = try TestNginx.url("engine-8m.bin", location: "rate", query: "rate=1k")
        let fast = try TestNginx.url("engine-1m2.bin")
        try TestNginx.makeFile("engine-1m2.bin", size: 1 << 20)
        let slowSink = PausingSink(pauseEvery: 0)
        let slowTransfer = engine.start(HTTPRequest(url: slow), sink: slowSink)
        let other = try await engine.fetch(HTTPRequest(url: fast))
        slowTransfer.cancel()
        slowTransfer.cancel()
        _ = await slowSink.completion()
        #expect(other.body.count == 1 << 20)
        if case .failure(let error) = slowSink.result { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
    }

    /// A transfer whose reads gather (bytes read a few times a second) gets every byte, in order.
    @Test func aTransferWhoseReadsGatherGetsEveryByte() async throws {
        let path = try await TestNginx.makeFileOffPool("engine-gather.bin", size: 256 << 10)
        let engine = HTTPEngine(configuration: .init(), idleWaitMilliseconds: 60_000)
        defer { engine.shutdown() }
        let sink = PausingSink(pauseEvery: 0)
        let url = try TestNginx.url("engine-gather.bin", location: "rate", query: "rate=512k")
        engine.start(HTTPRequest(url: url), sink: sink).gatherReads(every: .milliseconds(100))
        let result = await sink.completion()
        #expect(result.isSuccess, "\(result)")
        let source = try #require(FileManager.default.contents(atPath: path))
        let same = sink.body.elementsEqual(source)
        #expect(same)
    }

    /// While its only transfer gathers its reads the I/O thread sleeps instead of waiting for
    /// sockets; a new request or a cancel must end that sleep at once. The gathering interval
    /// and the idle wait are made an hour and a minute long, so that a missed wake-up would
    /// show; each request's wait is measured on the I/O thread, as above. The slow transfer
    /// lasts 512 s, past the time limit: a full parallel run took 165 s for this test, and the
    /// transfer (then 128 s) had ended before its cancel.
    @Test(.timeLimit(.minutes(5)))
    func requestsAndCancelsEndTheSleepOfGatheredReads() async throws {
        try TestNginx.makeFile("engine-tiny.bin", size: 10)
        try TestNginx.makeFile("engine-8m.bin", size: 8 << 20)
        let engine = HTTPEngine(configuration: .init(), idleWaitMilliseconds: 60_000)
        defer { engine.shutdown() }
        let slowSink = PausingSink(pauseEvery: 0)
        let slow = engine.start(HTTPRequest(url: try TestNginx.url("engine-8m.bin", location: "rate", query: "rate=16k")), sink: slowSink)
        slow.gatherReads(every: .seconds(3600))
        await expectHeadsAtOnce(from: engine, url: try TestNginx.url("engine-tiny.bin"), requests: 20)
        slow.cancel()
        _ = await slowSink.completion()
        if case .failure(let error) = slowSink.result { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
    }
}

/// Tells how long after `started` the head came (measured on the I/O thread), and the result.
final class TimingSink: HTTPSink {
    private let started: ContinuousClock.Instant
    private let state = Mutex<
        (
            head: Duration?, result: Result<Void, HTTPError>?,
            waiter: CheckedContinuation<(Result<Void, HTTPError>, Duration?), Never>?
        )
    >((nil, nil, nil))

    init(started: ContinuousClock.Instant) {
        self.started = started
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision {
        let after = ContinuousClock.now - started
        state.withLock { $0.head = after }
        return .proceed
    }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision { .proceed }

    func complete(_ result: Result<Void, HTTPError>) {
        let (waiter, head) = state.withLock { state in
            state.result = result
            defer { state.waiter = nil }
            return (state.waiter, state.head)
        }
        waiter?.resume(returning: (result, head))
    }

    /// The result and how long the head took, once the transfer has completed.
    func completion() async -> (Result<Void, HTTPError>, Duration?) {
        await withCheckedContinuation { continuation in
            let done: (Result<Void, HTTPError>, Duration?)? = state.withLock { state in
                guard let result = state.result else {
                    state.waiter = continuation
                    return nil
                }
                return (result, state.head)
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}

/// Pauses every `pauseEvery`-th slice (0: never) and collects the body.
final class PausingSink: HTTPSink {
    private struct State {
        var body: [UInt8] = []
        var calls = 0
        var pauses = 0
        var result: Result<Void, HTTPError>?
        var waiter: CheckedContinuation<Result<Void, HTTPError>, Never>?
        var resumer: HTTPTransfer?
    }
    private let state = Mutex(State())
    private let pauseEvery: Int

    init(pauseEvery: Int = 3) { self.pauseEvery = pauseEvery }

    var isComplete: Bool { state.withLock { $0.result != nil } }
    var pauses: Int { state.withLock { $0.pauses } }
    var body: [UInt8] { state.withLock { $0.body } }
    var result: Result<Void, HTTPError>? { state.withLock { $0.result } }

    /// From now on, each pause is followed by `transfer.resume()` from a Dispatch thread.
    func resumeOnPause(_ transfer: HTTPTransfer) {
        let paused = state.withLock { state in
            state.resumer = transfer
            return state.pauses > 0
        }
        if paused { transfer.resume() }
    }

    /// The result, once the transfer has completed.
    func completion() async -> Result<Void, HTTPError> {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(returning: result) }
        }
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision { .proceed }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        let (decision, resumer): (HTTPSinkDecision, HTTPTransfer?) = state.withLock { state in
            state.calls += 1
            if pauseEvery > 0, state.calls % pauseEvery == 0 {
                state.pauses += 1
                return (.pause, state.resumer)
            }
            state.body.append(contentsOf: body)
            return (.proceed, nil)
        }
        if let resumer { DispatchQueue.global().async { resumer.resume() } }
        return decision
    }

    func complete(_ result: Result<Void, HTTPError>) {
        let waiter = state.withLock { state in
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }
}

/// Takes every slice; every eighth says `.proceedThenPause`, and a Dispatch thread resumes the
/// transfer. Counts the bytes that come between a pause and its resume.
final class TakingPausingSink: HTTPSink {
    private struct State {
        var body: [UInt8] = []
        var calls = 0
        var pauses = 0
        var paused = false
        var afterPause = 0
        var mostAfterPause = 0
        var transfer: HTTPTransfer?
        var result: Result<Void, HTTPError>?
        var waiter: CheckedContinuation<Result<Void, HTTPError>, Never>?
    }
    private let state = Mutex(State())

    var pauses: Int { state.withLock { $0.pauses } }
    var mostAfterPause: Int { state.withLock { $0.mostAfterPause } }
    var body: [UInt8] { state.withLock { $0.body } }

    /// Resumes `transfer` after each pause (and now, if one came before it was known).
    func resumeOnPause(_ transfer: HTTPTransfer) {
        let paused = state.withLock { state in
            state.transfer = transfer
            return state.paused
        }
        if paused { resume() }
    }

    /// Ends the pause, then resumes: bytes that come after belong to no pause.
    private func resume() {
        let transfer = state.withLock { state in
            state.paused = false
            return state.transfer
        }
        transfer?.resume()
    }

    func completion() async -> Result<Void, HTTPError> {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(returning: result) }
        }
    }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision { .proceed }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        let (decision, known): (HTTPSinkDecision, Bool) = state.withLock { state in
            state.body.append(contentsOf: body)
            state.calls += 1
            if state.paused {
                state.afterPause += body.count
                state.mostAfterPause = max(state.mostAfterPause, state.afterPause)
                return (.proceed, false)
            }
            guard state.calls % 8 == 0 else { return (.proceed, false) }
            state.pauses += 1
            state.paused = true
            state.afterPause = 0
            return (.proceedThenPause, state.transfer != nil)
        }
        if known { DispatchQueue.global().async { self.resume() } }
        return decision
    }

    func complete(_ result: Result<Void, HTTPError>) {
        let waiter = state.withLock { state in
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

/// Pauses the first slice, then ends the transfer (`.finish` or `.abort`) when it comes again.
final class EndAfterPauseSink: HTTPSink {
    private struct State {
        var calls = 0
        var result: Result<Void, HTTPError>?
    }
    private let state = Mutex(State())
    private let finish: Bool

    init(finish: Bool) { self.finish = finish }

    var paused: Bool { state.withLock { $0.calls > 0 } }
    var calls: Int { state.withLock { $0.calls } }
    var isComplete: Bool { state.withLock { $0.result != nil } }
    var result: Result<Void, HTTPError>? { state.withLock { $0.result } }

    func receive(head: HTTPResponseHead) -> HTTPSinkDecision { .proceed }

    func receive(body: UnsafeRawBufferPointer) -> HTTPSinkDecision {
        let calls = state.withLock { state in
            state.calls += 1
            return state.calls
        }
        if calls == 1 { return .pause }
        return finish ? .finish : .abort(HTTPError(.other, url: "test", message: "enough"))
    }

    func complete(_ result: Result<Void, HTTPError>) {
        state.withLock { $0.result = result }
    }
}
