@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// The download's decisions in the situations earlier work got wrong or had to get right,
/// each as a case of its own, without I/O.
@Suite struct DownloadStateMachineCaseTests {
    typealias Machine = DownloadStateMachine

    static func requests(_ actions: [Machine.Action]) -> [Machine.Request] {
        actions.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    @Test func rangeAnswersFromTheWrongByteCutToOneConnectionThenFail() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size, shiftsRanges: true))
        driver.runToEnd()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.code == .rangeNotHonoured)
        #expect(driver.machine.rangeLies == Machine.maxRangeLies)
    }

    @Test func aRunningConnectionTakesBackTheRangeOfOneThatFailed() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size), settings: { $0.connections = 2 })
        driver.answer(1)
        // The probe (asking for everything) was split: connection 2 has the back half.
        #expect(driver.transfers[2]?.request.start == MachineDriver.size / 2)
        driver.answer(2)
        driver.end(2, error: MachineDriver.error(.connectionLost))
        let assignment = driver.machine.connections[1]?.assignment.flatMap { driver.machine.map?.assignment($0) }
        #expect(assignment?.end == MachineDriver.size)
        driver.runToEnd()
        driver.checkEnd()
    }

    @Test func aCompleteDownloadDoesNotWaitForRetriesStillDue() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size), settings: { $0.connections = 2 })
        driver.answer(1)
        driver.answer(2)
        driver.end(2, error: MachineDriver.error(.connectionLost))
        #expect(driver.retriesDue == 1)
        // The probe's request covers the lost range: it fetches everything alone.
        while !driver.transfers.isEmpty { driver.deliver(1, count: 10_000) }
        driver.finishWriter()
        #expect(driver.isDone)
        driver.checkEnd()
        driver.retry()
        #expect(driver.violations.isEmpty)
    }

    /// Every connection takes new ground, then all are cut one after the other with no byte in
    /// between (a server that closes each answer after so many bytes): no streak, each wave of
    /// failures is one first retry, and the download completes with two retries allowed. (It
    /// used to count the cuts as one streak and give up at the third.)
    @Test func connectionsCutTogetherAfterProgressAreNoStreak() {
        var driver = MachineDriver(
            server: .init(size: MachineDriver.size, cutsAfter: 5000), settings: { $0.retryPolicy.retries = 2 })
        for _ in 0..<1000 where !driver.isDone {
            let numbers = driver.transfers.keys.sorted()
            guard !numbers.isEmpty else {
                if driver.retriesDue > 0 { driver.retry() } else { driver.runToEnd() }
                continue
            }
            for number in numbers where driver.transfers[number]?.cancelled == true { driver.end(number) }
            numbers.forEach { driver.answer($0) }
            // Each takes its bytes up to the cut, then each is cut.
            for number in numbers { driver.deliver(number, count: 5000) }
            for number in numbers { driver.deliver(number, count: 5000) }
        }
        driver.checkEnd()
        if case .failure(let error)? = driver.outcomes.first { Issue.record("\(error)") }
        let attempts = driver.events.compactMap { if case .retrying(_, let attempt, _) = $0 { attempt } else { nil } }
        #expect(!attempts.isEmpty && attempts.allSatisfy { $0 == 1 }, "\(attempts)")
    }

    /// A retry told with its wait: no connection opens before the wait is over, though another
    /// connection ends meanwhile and the failed range is free; failures while it waits join it.
    @Test func noConnectionOpensBeforeTheWaitARetryWasToldWith() {
        var driver = MachineDriver(server: .init(size: 90_000), settings: { $0.connections = 4 })
        (1...4).forEach { driver.answer($0) }
        #expect(driver.transfers.count == 4)
        driver.end(3, error: MachineDriver.error(.connectionLost))
        driver.end(4, error: MachineDriver.error(.connectionLost))
        let retrying = driver.events.compactMap { if case .retrying(_, let attempt, let delay) = $0 { (attempt, delay) } else { nil } }
        #expect(retrying.count == 1 && retrying.first?.0 == 1)
        #expect(driver.retryTimes.count == 1)
        // Connection 2 finishes its range: ranges are free, yet nothing opens during the wait.
        for _ in 0..<10 { driver.deliver(2, count: 10_000) }
        driver.tick(by: 0.1)
        #expect(driver.transfers.keys.sorted() == [1])
        // The wait is over: connections for the free ranges.
        driver.retry()
        #expect(abs(driver.now - (retrying.first?.1.seconds ?? 0)) < 1e-9)
        #expect(driver.transfers.count == 4)
        driver.runToEnd()
        driver.checkEnd()
    }

    @Test func aCancelDuringARetryWaitEndsAtOnce() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size))
        driver.end(1, error: MachineDriver.error(.connect))
        #expect(driver.retriesDue == 1)
        driver.apply(driver.machine.cancel(removingFiles: false, at: 0))
        driver.finishWriter()
        #expect(driver.isDone)
        driver.checkEnd()
    }

    /// A download that fails before its first byte (a full disk at the reservation), or whose
    /// writer kept no records, leaves nothing and offers no resume; one whose records claim
    /// bytes keeps its `.part` and says so. (An empty `.part` was kept, with the advice to
    /// resume from it.)
    @Test(arguments: [(0, false, false), (20_000, false, false), (20_000, true, true)])
    func onlyAPartWithRecordsOfBytesIsKept(bytes: Int, recordsKept: Bool, kept: Bool) {
        var driver = MachineDriver(server: .init(size: MachineDriver.size), settings: { $0.heldFileSize = 0 })
        driver.answer(1)
        driver.deliver(1, count: bytes)
        driver.apply(driver.machine.fail(DownloadError(.noSpace, "not enough space for /d/f.part")))
        driver.transfers.keys.sorted().forEach { driver.end($0) }
        #expect(driver.writerFinishing)
        driver.apply(driver.machine.writerFinished(keptRecords: recordsKept, at: driver.now))
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.code == .noSpace)
        #expect(error.resumableFile == (kept ? "/d/f.part" : nil))
        #expect(driver.discarded == !kept)
    }

    @Test func aResumeOfAChangedFileStartsOverFromScratch() {
        var record = ControlFile(url: "http://h/f", size: MachineDriver.size, etag: "\"v0\"", lastModified: nil)
        record.record(ByteRanges([0..<50_000]))
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<50_000]), firstMissing: 50_000)
        var driver = MachineDriver(server: .init(size: MachineDriver.size), resume: point)
        #expect(driver.transfers[1]?.request.ifRange == "\"v0\"")
        #expect(driver.transfers[1]?.request.start == 50_000)
        driver.answer(1)
        #expect(driver.events.contains { if case .notice(let text) = $0 { text.contains("ETag changed") } else { false } })
        // The answer is dropped; a fresh probe asks for everything, with no validator.
        #expect(driver.transfers[2]?.request.start == 0)
        #expect(driver.transfers[2]?.request.ifRange == nil)
        driver.runToEnd()
        driver.checkEnd()
        guard case .success(let result)? = driver.outcomes.first else { Issue.record("failed"); return }
        #expect(result.resumedBytes == 0)
    }

    @Test func aResumeOfTheSameFileFetchesOnlyWhatIsMissing() {
        var record = ControlFile(url: "http://h/f", size: MachineDriver.size, etag: "\"v1\"", lastModified: nil)
        record.record(ByteRanges([0..<60_000]))
        let point = Machine.ResumePoint(record: record, written: ByteRanges([0..<60_000]), firstMissing: 60_000)
        var driver = MachineDriver(server: .init(size: MachineDriver.size), resume: point)
        driver.placed.insert(0..<60_000)
        driver.runToEnd()
        driver.checkEnd()
        guard case .success(let result)? = driver.outcomes.first else { Issue.record("failed"); return }
        #expect(result.resumedBytes == 60_000)
        #expect(driver.placedCount == 40_000)
    }

    @Test func aClientErrorIsNotRetriedAndAServerErrorWaitsWhatItAsks() {
        var notFound = MachineDriver(server: .init(size: MachineDriver.size, status: 404))
        notFound.runToEnd()
        notFound.checkEnd()
        #expect(notFound.retriesDue == 0)
        #expect(notFound.events.allSatisfy { if case .retrying = $0 { false } else { true } })

        var busy = MachineDriver(server: .init(size: MachineDriver.size))
        busy.end(1, error: MachineDriver.error(.httpStatus, status: 503, retryAfter: 7))
        let delays = busy.events.compactMap { if case .retrying(_, _, let delay) = $0 { delay } else { nil } }
        #expect(delays.count == 1 && delays[0] >= .seconds(7))
    }

    @Test func aStreamRestartsFromZeroAndOnlyNewGroundEndsAFailureStreak() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size, ranges: false), settings: { $0.retryPolicy.retries = 2 })
        // Every attempt dies at the same byte: no new ground, so three failures end it.
        for attempt in 1...3 {
            let number = driver.transfers.keys.sorted()[0]
            driver.answer(number)
            driver.deliver(number, count: 30_000)
            driver.end(number, error: MachineDriver.error(.connectionLost))
            #expect(driver.machine.phase.stage == (attempt < 3 ? .probing : .finishing))
            driver.retry()
        }
        driver.finishWriter()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.message.contains("gave up after 2 retries"))
        #expect(error.resumableFile == nil)
    }

    @Test func aStreamThatEndsShortOfItsLengthFails() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size, ranges: false))
        driver.answer(1)
        driver.deliver(1, count: 50_000)
        driver.end(1)
        driver.finishWriter()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.message.contains("the body ended after 50000 of 100000 bytes"))
    }

    @Test func aSilentConnectionIsDroppedButOneHeldBackIsNot() {
        var driver = MachineDriver(
            server: .init(size: MachineDriver.size),
            settings: {
                $0.connections = 3; $0.stallTimeout = 5
            })
        driver.transfers.keys.sorted().forEach { driver.answer($0) }
        driver.answer(2)
        driver.answer(3)
        driver.deliver(2, count: 1000, writerFull: true)
        driver.deliver(3, count: 1000, rateLimited: true)
        for _ in 0..<20 { driver.tick() }
        #expect(driver.transfers[1]?.cancelled == true)
        #expect(driver.transfers[2]?.cancelled == false)
        #expect(driver.transfers[3]?.cancelled == false)
        driver.runToEnd()
        driver.checkEnd()
    }

    /// Four connections for six looks of the watchdog: three fast, the fourth crawling; with
    /// `diskBehind`, the first also waits for the disk at each look.
    static func crawlingFourth(diskBehind: Bool) -> MachineDriver {
        var driver = MachineDriver(server: .init(size: 4_000_000), settings: { $0.connections = 4 })
        driver.transfers.keys.sorted().forEach { driver.answer($0) }
        driver.transfers.keys.sorted().forEach { driver.answer($0) }
        for _ in 0..<6 {
            for number in [1, 2, 3] { driver.deliver(number, count: 50_000) }
            driver.deliver(4, count: 100)
            if diskBehind { driver.deliver(1, count: 100, writerFull: true) }
            driver.tick()
            driver.apply(driver.machine.diskHasRoom(at: driver.now))
        }
        return driver
    }

    @Test func aStragglerIsDroppedAfterTwoSlowLooks() {
        var driver = Self.crawlingFourth(diskBehind: false)
        #expect(driver.transfers[4]?.cancelled == true)
        #expect(driver.transfers.filter { $0.value.cancelled }.count == 1)
        driver.runToEnd()
        driver.checkEnd()
    }

    @Test func noStragglerIsDroppedWhileTheDiskIsBehind() {
        var driver = Self.crawlingFourth(diskBehind: true)
        #expect(driver.transfers.allSatisfy { !$0.value.cancelled })
        driver.runToEnd()
        driver.checkEnd()
    }

    @Test func answersAndBodiesAfterAFailureAreRefused() {
        var driver = MachineDriver(server: .init(size: MachineDriver.size), settings: { $0.heldFileSize = 0 })
        driver.answer(1)
        driver.apply(driver.machine.fail(DownloadError(.noSpace, "the disk is full")))
        #expect(driver.machine.place(100, on: 1) == .abort)
        guard case .verdict(.abort, _) = driver.machine.head(driver.head(for: driver.transfers[1]!), on: 1, wallClock: 0) else {
            Issue.record("an answer after the failure was taken")
            return
        }
        driver.runToEnd()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.code == .noSpace)
        #expect(error.message.contains("still to fetch"))
        // Not a byte was written: nothing is kept to resume from.
        #expect(error.resumableFile == nil)
    }

    @Test func connectionsBeyondTheFirstWaitForPermits() {
        var driver = MachineDriver(
            server: .init(size: MachineDriver.size),
            settings: {
                $0.limitsHosts = true; $0.connections = 4
            })
        driver.answer(1)
        #expect(driver.permitRequests == [3])
        #expect(driver.transfers.count == 1)
        driver.apply(driver.machine.permitsGranted(1, at: 0))
        #expect(driver.transfers.count == 2)
        // A short answer leaves a wake-up behind: no new request until a permit frees.
        #expect(driver.permitRequests == [3])
        driver.apply(driver.machine.permitFreed(at: 0))
        #expect(driver.permitRequests == [3, 2])
        driver.apply(driver.machine.permitsGranted(2, at: 0))
        #expect(driver.transfers.count == 4)
        driver.runToEnd()
        driver.checkEnd()
        // Every permit taken went back.
        #expect(driver.permitsReleased == 3)
    }

    @Test func aMirrorThatAnswersWithAnotherFileIsDroppedAtOnce() {
        var driver = MachineDriver(
            server: .init(size: MachineDriver.size),
            settings: {
                $0.mirrors = ["http://m/f"]
                $0.connections = 2
            })
        driver.answer(1)
        #expect(driver.transfers[2]?.request.url == "http://m/f")
        driver.server.etag = "\"other\""
        driver.answer(2)
        #expect(driver.machine.mirrors[1].dropped)
        #expect(
            driver.events.contains {
                if case .notice(let text) = $0 { text.hasPrefix("mirror http://m/f serves a different file") } else { false }
            })
        driver.server.etag = "\"v1\""
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.machine.failureStreak == 0)
    }

    /// A size no resume record can describe is downloaded without records (never a trap), and
    /// its failure offers no file to resume from.
    @Test func aFileTooLargeForARecordKeepsNone() {
        var driver = MachineDriver(server: .init(size: Int64.max - 1))
        driver.answer(1)
        #expect(driver.machine.opening?.segmented == true)
        #expect(driver.machine.opening?.keepsRecords == false)
        driver.apply(driver.machine.cancel(removingFiles: false, at: 0))
        driver.runToEnd()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else {
            Issue.record("it finished")
            return
        }
        #expect(error.resumableFile == nil)
    }

    @Test func anEmptyFileFinishesWithoutABody() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Range", value: "bytes */0")
        var driver = MachineDriver(server: .init(size: 0))
        guard
            case .open(let opening) = driver.machine.head(
                HTTPResponseHead(status: 416, headers: headers, effectiveURL: "http://h/f"),
                on: 1, wallClock: 0)
        else { Issue.record("refused"); return }
        let (verdict, actions) = driver.machine.fileOpened(
            .success("/d/f"), for: opening,
            head: HTTPResponseHead(status: 416, headers: headers, effectiveURL: "http://h/f"),
            on: 1, at: 0)
        #expect(verdict == .finish)
        driver.apply(actions)
        driver.transfers[1]?.answered = true
        driver.end(1)
        driver.finishWriter()
        driver.checkEnd()
    }
}
