@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A download whose URL fails its first request falls over to the next mirror at once, and
/// fails only once every source has failed: the state machine against a model server, no I/O,
/// a simulated clock.
@Suite struct ProbeFailoverTests {
    typealias Machine = DownloadStateMachine

    static let first = "http://h/f"
    static let mirror = "http://m/f"
    static let second = "http://n/f"

    /// A failure of `url` as the engine tells it: `code`, with `status` for an error status.
    static func failure(_ url: String, _ code: HTTPError.Code, status: Int? = nil) -> HTTPError {
        let message =
            switch code {
            case .connect: "Failed to connect: Connection refused"
            case .resolve: "Could not resolve host"
            case .timeout: "Timeout was reached"
            case .tls: "TLS handshake failed"
            default: "the server answered HTTP \(status ?? 0)"
            }
        return HTTPError(code, url: url, message: message, status: status)
    }

    static func driver(
        mirrors: [String] = [mirror, second], ranges: Bool = true, resume: Machine.ResumePoint? = nil
    ) -> MachineDriver {
        MachineDriver(
            server: .init(size: MachineDriver.size, ranges: ranges), settings: { $0.mirrors = mirrors }, resume: resume)
    }

    /// The waits told in `retrying` events, in seconds.
    static func retrying(_ driver: MachineDriver) -> [Double] {
        driver.events.compactMap { if case .retrying(_, _, let delay) = $0 { delay.seconds } else { nil } }
    }

    static func notices(_ driver: MachineDriver) -> [String] {
        driver.events.compactMap { if case .notice(let text) = $0 { text } else { nil } }
    }

    /// Failures a mirror may not share: the next source is asked at once (no retry, no wait),
    /// whether it answers with ranges or without, and the file comes from it whole.
    @Test(
        arguments: [
            failure(first, .connect), failure(first, .resolve), failure(first, .timeout), failure(first, .tls),
            failure(first, .httpStatus, status: 404), failure(first, .httpStatus, status: 410),
            failure(first, .httpStatus, status: 403), failure(first, .httpStatus, status: 503),
            failure(first, .httpStatus, status: 500),
        ], [true, false])
    func aDeadFirstURLSendsTheProbeToTheMirrorAtOnce(error: HTTPError, ranges: Bool) {
        var driver = Self.driver(ranges: ranges)
        if let status = error.status {
            driver.statuses[Self.first] = status
        } else {
            driver.unreachable[Self.first] = error
        }
        driver.answer(1)
        #expect(driver.transfers[2]?.request.url == Self.mirror)
        #expect(driver.transfers[2]?.request.start == 0 && driver.transfers[2]?.request.end == nil)
        #expect(driver.retryTimes.isEmpty)
        #expect(Self.notices(driver).first?.hasSuffix("; trying \(Self.mirror) instead") == true, "\(Self.notices(driver))")
        driver.runToEnd()
        driver.checkEnd()
        #expect((try? driver.outcomes.first?.get())?.segmented == ranges)
        // No wait, no retry, and no connection to the dead URL again.
        #expect(driver.now == 0)
        #expect(driver.retryTimes.isEmpty && Self.retrying(driver).isEmpty)
        #expect(driver.machine.mirrors[0].dropped)
        #expect(driver.machine.reference == 1)
        #expect(driver.transfers.isEmpty)
    }

    /// A first answer that breaks the range rules (a 206 from another byte than the one asked)
    /// falls over too, and that source is not asked again.
    @Test func aBrokenRangeAnswerFallsOver() {
        var driver = Self.driver()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Range", value: "bytes 5-99999/100000")
        headers.add(name: "Content-Length", value: "99995")
        let head = HTTPResponseHead(status: 206, headers: headers, effectiveURL: Self.first)
        guard case .verdict(.abort(let error), _) = driver.machine.head(head, on: 1, wallClock: 0) else {
            Issue.record("the answer was taken")
            return
        }
        #expect(error.code == .rangeNotHonoured)
        driver.end(1, error: error)
        #expect(driver.transfers[2]?.request.url == Self.mirror)
        #expect(driver.machine.mirrors[0].dropped)
        driver.runToEnd()
        driver.checkEnd()
        #expect(Self.retrying(driver).isEmpty)
    }

    /// With ranges, the mirror whose answer was taken serves the file with the other live
    /// mirror, never the dead URL.
    @Test func theSegmentsGoToTheLiveSourcesOnly() {
        var driver = Self.driver()
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        var urls: [String] = []
        for _ in 0..<10_000 where !driver.isDone {
            for transfer in driver.transfers.values where !urls.contains(transfer.request.url) {
                urls.append(transfer.request.url)
            }
            driver.runToEnd(limit: 1)
        }
        driver.checkEnd()
        #expect(urls.first == Self.first)
        #expect(Set(urls.dropFirst()) == [Self.mirror, Self.second])
        #expect(driver.machine.failureStreak == 0)
    }

    /// Every source refuses: each is asked in turn without a wait, then the retries wait as
    /// for one URL (a round of all three after each wait), and the download fails once, naming
    /// the URL's failure and then the mirrors'.
    @Test func everySourceDeadFailsOnceNamingThemAll() {
        var driver = Self.driver()
        for url in [Self.first, Self.mirror, Self.second] { driver.unreachable[url] = Self.failure(url, .connect) }
        var requested: [Int: (url: String, time: Double)] = [:]
        while !driver.isDone {
            for (number, transfer) in driver.transfers where requested[number] == nil {
                requested[number] = (transfer.request.url, driver.now)
            }
            driver.runToEnd(limit: 1)
        }
        driver.checkEnd()
        let retries = Machine.Settings(url: Self.first).retryPolicy.retries
        let order = requested.keys.sorted().map { requested[$0]! }
        #expect(order.map(\.url) == Array(repeating: [Self.first, Self.mirror, Self.second], count: retries + 1).flatMap { $0 })
        // The three of a round at the same moment; a wait between rounds only.
        #expect(Set(order.map(\.time)).count == retries + 1)
        #expect(Self.retrying(driver).count == retries)
        guard case .failure(let error)? = driver.outcomes.first else {
            Issue.record("it did not fail")
            return
        }
        #expect(error.url == Self.first)
        #expect(
            error.message
                == "http://h/f: Failed to connect: Connection refused; its 2 mirrors failed too: "
                + "http://m/f: Failed to connect: Connection refused; http://n/f: Failed to connect: Connection refused"
                + " (gave up after \(retries) retries)")
    }

    /// Answers retrying cannot change (404 everywhere): each source once, no wait, one failure.
    @Test func everySourceWithoutTheFileFailsAtOnce() {
        var driver = Self.driver()
        for url in [Self.first, Self.mirror, Self.second] { driver.statuses[url] = 404 }
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.now == 0)
        #expect(Self.retrying(driver).isEmpty)
        guard case .failure(let error)? = driver.outcomes.first else {
            Issue.record("it did not fail")
            return
        }
        #expect(error.code == .httpStatus)
        #expect(error.message.hasPrefix("http://h/f: the server answered HTTP 404"), "\(error.message)")
        #expect(error.message.contains("; its 2 mirrors failed too: http://m/f: the server answered HTTP 404"))
        #expect(error.message.contains("; http://n/f: the server answered HTTP 404"))
        #expect(!error.message.contains("gave up"))
    }

    /// After a round of failures the retry waits, then asks the sources again in order, from
    /// the URL: one that answers then carries the download.
    @Test func aRetryAsksTheSourcesAgainInOrder() {
        var driver = Self.driver(mirrors: [Self.mirror])
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        driver.statuses[Self.mirror] = 503
        driver.answer(1)
        driver.answer(2)
        #expect(driver.transfers.isEmpty)
        #expect(driver.retryTimes.count == 1)
        #expect(Self.retrying(driver).count == 1)
        driver.statuses[Self.mirror] = nil
        driver.retry()
        #expect(driver.transfers[3]?.request.url == Self.first)
        driver.runToEnd()
        driver.checkEnd()
        #expect(Self.retrying(driver).count == 1)
        #expect(driver.machine.reference == 1)
    }

    /// A 404 from the URL drops it for good; the mirror's retries go on alone, at the wait
    /// its `Retry-After` asks.
    @Test func aHopelessSourceIsNotAskedAgainAndRetryAfterCounts() {
        var driver = Self.driver(mirrors: [Self.mirror])
        driver.statuses[Self.first] = 404
        driver.answer(1)
        #expect(driver.transfers[2]?.request.url == Self.mirror)
        driver.end(2, error: HTTPError(.httpStatus, url: Self.mirror, message: "busy", status: 503, retryAfter: 7))
        #expect(driver.retryTimes == [7])
        driver.retry()
        #expect(driver.transfers[3]?.request.url == Self.mirror)
        driver.runToEnd()
        driver.checkEnd()
    }

    /// A stall of the URL's first request (no answer for the stall timeout) falls over too.
    @Test func aSilentURLFallsOverAfterTheStallTimeout() {
        var driver = Self.driver()
        driver.silent = [Self.first]
        driver.runToEnd()
        driver.checkEnd()
        #expect(Self.retrying(driver).isEmpty)
        let stall = Machine.Settings(url: Self.first).stallTimeout
        #expect(driver.now > stall && driver.now <= stall + 2 * Machine.tickInterval)
    }

    /// A resume whose URL is dead asks the mirror for the first missing byte with the record's
    /// validator, and carries on where the mirror proves the file the same.
    @Test func aResumeFallsOverWithItsValidator() {
        let record = ControlFile(url: Self.first, size: MachineDriver.size, etag: "\"v1\"", lastModified: nil)
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<50_000]), firstMissing: 50_000)
        var driver = Self.driver(mirrors: [Self.mirror], resume: point)
        driver.placed.insert(0..<50_000)
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        driver.answer(1)
        #expect(driver.transfers[2]?.request == .init(connection: 2, url: Self.mirror, start: 50_000, end: nil, ifRange: "\"v1\""))
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.machine.opening?.resuming == true)
        #expect((try? driver.outcomes.first?.get())?.resumedBytes == 50_000)
    }

    /// A record made with the mirror's answer (the URL had failed) is resumed from the mirror
    /// first, the source its validator comes from; the URL is asked only if the mirror fails.
    @Test func aResumeAsksTheSourceItsRecordNamesFirst() {
        var record = ControlFile(url: Self.mirror, size: MachineDriver.size, etag: "\"v1\"", lastModified: nil)
        record.record(ByteRanges([0..<50_000]))
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<50_000]), firstMissing: 50_000)
        var driver = Self.driver(resume: point)
        driver.placed.insert(0..<50_000)
        #expect(driver.transfers[1]?.request == .init(connection: 1, url: Self.mirror, start: 50_000, end: nil, ifRange: "\"v1\""))
        driver.statuses[Self.mirror] = 503
        driver.answer(1)
        driver.statuses[Self.mirror] = nil
        #expect(driver.transfers[2]?.request == .init(connection: 2, url: Self.first, start: 50_000, end: nil, ifRange: "\"v1\""))
        driver.runToEnd()
        driver.checkEnd()
        #expect((try? driver.outcomes.first?.get())?.resumedBytes == 50_000)
        #expect(driver.machine.reference == 0)
    }

    /// A record without ETag or Last-Modified (trusted by size for its own URL only) cannot be
    /// resumed from a mirror: the download starts over from it.
    @Test func aResumeWithoutAValidatorStartsOverOnTheMirror() {
        let record = ControlFile(url: Self.first, size: MachineDriver.size, etag: nil, lastModified: nil)
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<50_000]), firstMissing: 50_000)
        var driver = Self.driver(mirrors: [Self.mirror], resume: point)
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        driver.answer(1)
        driver.answer(2)
        #expect(driver.transfers[3]?.request == .init(connection: 3, url: Self.mirror, start: 0, end: nil))
        #expect(Self.notices(driver).last?.contains("no ETag or Last-Modified") == true, "\(Self.notices(driver))")
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.machine.opening?.resuming == false)
    }

    /// A record without a validator made with a mirror's answer is resumed from that mirror
    /// on its size alone (as `trustSize` trusts a URL's own record), and from no other source.
    @Test func aResumeWithoutAValidatorIsTrustedFromTheSourceItNames() {
        var record = ControlFile(url: Self.mirror, size: MachineDriver.size, etag: nil, lastModified: nil)
        record.record(ByteRanges([0..<50_000]))
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<50_000]), firstMissing: 50_000)
        var alive = Self.driver(mirrors: [Self.mirror], resume: point)
        alive.placed.insert(0..<50_000)
        alive.runToEnd()
        alive.checkEnd()
        #expect((try? alive.outcomes.first?.get())?.resumedBytes == 50_000)
        var dead = Self.driver(mirrors: [Self.mirror], resume: point)
        dead.unreachable[Self.mirror] = Self.failure(Self.mirror, .connect)
        dead.answer(1)
        dead.answer(2)
        #expect(dead.transfers[3]?.request == .init(connection: 3, url: Self.first, start: 0, end: nil))
        dead.runToEnd()
        dead.checkEnd()
        #expect((try? dead.outcomes.first?.get())?.resumedBytes == 0)
    }

    /// The mirror that answered defines the file: another mirror with another ETag is dropped,
    /// and the file comes whole from the one that answered.
    @Test func theMirrorThatAnsweredIsTheReference() {
        var driver = Self.driver()
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        driver.answer(1)
        driver.answer(2)
        #expect(driver.machine.etag == "\"v1\"")
        let toSecond = driver.transfers.keys.sorted().first { driver.transfers[$0]!.request.url == Self.second }
        guard let toSecond else {
            Issue.record("no connection to the second mirror")
            return
        }
        driver.server.etag = "\"other\""
        driver.answer(toSecond)
        driver.server.etag = "\"v1\""
        #expect(driver.machine.mirrors[2].dropped)
        #expect(!driver.machine.mirrors[1].dropped)
        driver.runToEnd()
        driver.checkEnd()
    }

    /// Without mirrors nothing changes: a refused connection is retried after the policy's
    /// waits, and the error is the URL's alone.
    @Test func withoutMirrorsTheRetriesAreAsBefore() {
        var driver = Self.driver(mirrors: [])
        driver.unreachable[Self.first] = Self.failure(Self.first, .connect)
        driver.runToEnd()
        driver.checkEnd()
        let retries = Machine.Settings(url: Self.first).retryPolicy.retries
        #expect(Self.retrying(driver).count == retries)
        guard case .failure(let error)? = driver.outcomes.first else { return }
        #expect(error.message == "http://h/f: Failed to connect: Connection refused (gave up after \(retries) retries)")
    }
}
