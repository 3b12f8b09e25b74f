@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// The download's decisions alone, without I/O: every phase x input, seeded random runs, and
/// the bugs earlier work found, each as a case. `MachineDriver` checks the invariants at every
/// step (bytes placed only where the server's are, never twice; the rename only when complete;
/// one final event, last).
@Suite struct DownloadStateMachineTests {
    typealias Machine = DownloadStateMachine

    // MARK: Every phase x every input

    /// Inputs that drive a fresh machine into each phase.
    static func driver(in phase: Machine.Stage) -> MachineDriver {
        var driver = MachineDriver(server: .init(size: MachineDriver.size, ranges: phase != .streaming))
        switch phase {
        case .probing:
            break
        case .streaming, .segmented:
            driver.answer(1)
        case .finishing:
            driver.answer(1)
            driver.apply(driver.machine.cancel(removingFiles: false, at: 0))
            while let number = driver.transfers.keys.first { driver.end(number) }
        case .done:
            driver.runToEnd()
        }
        #expect(driver.machine.phase.stage == phase)
        return driver
    }

    /// One of each input, fed to a driver.
    static let inputs: [(String, @Sendable (inout MachineDriver) -> Void)] = [
        ("answer", { driver in driver.transfers.keys.sorted().forEach { driver.answer($0) } }),
        ("body", { driver in driver.transfers.keys.sorted().forEach { driver.deliver($0, count: 1000) } }),
        (
            "body to a full writer",
            { driver in driver.transfers.keys.sorted().forEach { driver.deliver($0, count: 1000, writerFull: true) } }
        ),
        (
            "body held by a rate limit",
            { driver in driver.transfers.keys.sorted().forEach { driver.deliver($0, count: 1000, rateLimited: true) } }
        ),
        (
            "transfer lost",
            { driver in driver.transfers.keys.sorted().forEach { driver.end($0, error: MachineDriver.error(.connectionLost)) } }
        ),
        ("transfer ended well", { driver in driver.transfers.keys.sorted().forEach { driver.end($0) } }),
        (
            "404",
            { driver in driver.transfers.keys.sorted().forEach { driver.end($0, error: MachineDriver.error(.httpStatus, status: 404)) } }
        ),
        ("tick", { driver in driver.tick() }),
        ("a long silence", { driver in driver.tick(by: 60) }),
        ("cancel", { driver in driver.apply(driver.machine.cancel(removingFiles: false, at: driver.now)) }),
        ("cancel and remove", { driver in driver.apply(driver.machine.cancel(removingFiles: true, at: driver.now)) }),
        ("disk failure", { driver in driver.apply(driver.machine.fail(DownloadError(.noSpace, "full"))) }),
        ("disk has room", { driver in driver.apply(driver.machine.diskHasRoom(at: driver.now)) }),
        (
            "rate granted",
            { driver in driver.transfers.keys.sorted().forEach { driver.apply(driver.machine.rateGranted($0, at: driver.now)) } }
        ),
        ("permits", { driver in driver.apply(driver.machine.permitsGranted(2, at: driver.now)) }),
        ("permit freed", { driver in driver.apply(driver.machine.permitFreed(at: driver.now)) }),
        (
            "retry due",
            { driver in
                driver.retriesDue += 1; driver.retry()
            }
        ),
        ("writer finished", { driver in driver.finishWriter() }),
    ]

    @Test(arguments: Machine.Stage.allCases)
    func everyInputInEveryPhaseKeepsTheInvariants(_ phase: Machine.Stage) {
        for (name, input) in Self.inputs {
            var driver = Self.driver(in: phase)
            let eventsBefore = driver.events.count
            input(&driver)
            #expect(driver.violations.isEmpty, "\(phase) + \(name): \(driver.violations)")
            if phase == .done {
                #expect(driver.events.count == eventsBefore, "\(phase) + \(name): told \(driver.events.suffix(1))")
            }
            // Whatever happened, the world can run the download to its one end.
            driver.runToEnd()
            #expect(driver.isDone, "\(phase) + \(name) never ended")
            driver.checkEnd()
        }
    }

    // MARK: Seeded random runs

    /// Random interleavings of answers, slices of random sizes, lost connections, full
    /// writers, rate limits, ticks, retries and readers that come, move and go (up to three,
    /// windows of any size and rate), over servers with and without ranges: every run ends
    /// once, exact or with an error, and never breaks the rules on the way.
    @Test(arguments: 0..<200)
    func randomRunsKeepTheInvariants(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // One in eight larger than a reader's window, so that windows leave bytes outside.
        let size = Int64.random(in: 0...(seed % 8 == 7 ? 6_000_000 : 300_000), using: &random)
        let server = MachineDriver.Server(size: size, ranges: Int.random(in: 0..<4, using: &random) > 0)
        var driver = MachineDriver(
            server: server,
            settings: { settings in
                settings.connections = Int.random(in: 1...6, using: &random)
                settings.retryPolicy.retries = 1000
            }, seed: seed)
        for _ in 0..<20_000 where !driver.isDone {
            let numbers = driver.transfers.keys.sorted()
            let number = numbers.isEmpty ? 0 : numbers[Int.random(in: 0..<numbers.count, using: &random)]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<15: driver.answer(number)
            case 15..<80:
                driver.deliver(
                    number, count: Int.random(in: 1...20_000, using: &random),
                    writerFull: Int.random(in: 0..<20, using: &random) == 0,
                    rateLimited: Int.random(in: 0..<20, using: &random) == 0)
            case 80..<83: driver.end(number, error: MachineDriver.error(.connectionLost))
            case 83..<86: driver.apply(driver.machine.diskHasRoom(at: driver.now))
            case 86..<89: numbers.forEach { driver.apply(driver.machine.rateGranted($0, at: driver.now)) }
            case 89..<93: driver.tick(by: Double.random(in: 0...1, using: &random))
            case 93..<97:
                let reader = Int.random(in: 1...3, using: &random)
                let window =
                    Int.random(in: 0..<4, using: &random) == 0
                    ? nil
                    : ReaderWindow(
                        offset: Int64.random(in: 0...max(size, 0), using: &random),
                        bytesPerSecond: Int.random(in: 0..<3, using: &random) == 0 ? nil : Double.random(in: 1...200_000, using: &random))
                driver.apply(driver.machine.readerMoved(reader, to: window, at: driver.now))
            default: driver.retry()
            }
        }
        driver.runToEnd()
        #expect(driver.isDone, "seed \(seed)")
        driver.checkEnd()
        if case .failure(let error)? = driver.outcomes.first {
            Issue.record("seed \(seed): \(error)")
        }
    }

    /// The same, with a cancel at a random moment: it always ends, once, as cancelled.
    @Test(arguments: 0..<50)
    func aCancelAtAnyMomentEndsTheDownloadOnce(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var driver = MachineDriver(server: .init(size: 200_000), settings: { $0.heldFileSize = 1000 }, seed: seed)
        let cancelAt = Int.random(in: 0..<200, using: &random)
        for step in 0..<400 where !driver.isDone {
            if step == cancelAt { driver.apply(driver.machine.cancel(removingFiles: seed % 2 == 0, at: driver.now)) }
            let numbers = driver.transfers.keys.sorted()
            guard let number = numbers.randomElement(using: &random) else {
                driver.runToEnd()
                continue
            }
            driver.answer(number)
            driver.deliver(number, count: Int.random(in: 1...10_000, using: &random))
        }
        driver.runToEnd()
        driver.checkEnd()
        if case .failure(let error)? = driver.outcomes.first {
            #expect(error.code == .cancelled)
            // Kept only with records that claim bytes: else removed, and no resume is offered.
            let resumable = seed % 2 == 1 && driver.machine.opening != nil && !driver.placed.isEmpty
            #expect(driver.discarded == !resumable)
            #expect(error.resumableFile == (resumable ? "/d/f.part" : nil))
        }
    }
}
