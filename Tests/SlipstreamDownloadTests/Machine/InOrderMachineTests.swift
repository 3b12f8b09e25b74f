@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// The state machine of a download written in order (a stream destination), driven by the
/// model server: ranges handed out lowest first in pieces, no records, no restart of a stream
/// already written out.
@Suite struct InOrderMachineTests {
    static func driver(ranges: Bool = true) -> MachineDriver {
        MachineDriver(server: .init(size: MachineDriver.size, ranges: ranges)) { settings in
            settings.inOrderPieceSize = 5000
        }
    }

    @Test func piecesGoOutLowestFirstAndNoLargerThanThePieceSize() {
        var driver = Self.driver()
        driver.answer(1)
        let requests = driver.transfers.values.map(\.request).sorted { $0.start < $1.start }
        #expect(requests.map(\.start) == [0, 5000, 10_000, 15_000])
        #expect(requests.dropFirst().allSatisfy { $0.end == $0.start + 5000 })
        // The first connection's open request stops at the end of its piece; the next piece
        // goes to whoever comes free.
        driver.deliver(1, count: 5000)
        #expect(driver.transfers[1] == nil)
        #expect(driver.transfers.values.map(\.request.start).max() == 20_000)
        driver.runToEnd()
        driver.checkEnd()
        #expect(!driver.machine.resumable)
    }

    @Test func aSmallFileIsNotHeldWhole() {
        var driver = Self.driver()
        driver.answer(1)
        #expect(MachineDriver.size < DownloadStateMachine.Settings.defaultHeldFileSize)
        #expect(driver.machine.opening?.held == false)
        #expect(driver.machine.phase.stage == .segmented)
    }

    @Test func aStreamWithoutRangesThatFailsAfterItsFirstBytesCannotStartOver() {
        var driver = Self.driver(ranges: false)
        driver.answer(1)
        driver.deliver(1, count: 30_000)
        driver.end(1, error: MachineDriver.error(.connectionLost))
        #expect(driver.retriesDue == 0)
        driver.finishWriter()
        driver.checkEnd()
        guard case .failure(let error)? = driver.outcomes.first else { Issue.record("it succeeded"); return }
        #expect(error.message.contains("the 30000 bytes already written out cannot be taken back"))
        #expect(error.resumableFile == nil)
    }

    @Test func aStreamWithoutRangesThatFailsBeforeItsFirstByteIsRetried() {
        var driver = Self.driver(ranges: false)
        driver.answer(1)
        driver.end(1, error: MachineDriver.error(.connectionLost))
        #expect(driver.retriesDue == 1)
        driver.runToEnd()
        driver.checkEnd()
        #expect((try? driver.outcomes.first?.get()) != nil)
    }
}

extension InOrderMachineTests {
    /// The range at the write position holds up every byte after it: when its connection
    /// crawls, the next idle connection takes the back half of its remainder, not a new range.
    @Test func anIdleConnectionRacesACrawlingRangeAtTheWritePosition() {
        var driver = MachineDriver(server: .init(size: 4_000_000)) { settings in
            settings.inOrderPieceSize = 500_000
        }
        driver.answer(1)
        for number in driver.transfers.keys.sorted() { driver.answer(number) }
        driver.now += DownloadStateMachine.tickInterval
        driver.deliver(1, count: 10_000)
        for number in [2, 3, 4] { driver.deliver(number, count: 400_000) }
        driver.tick()
        // Connection 2 ends its range: the next request races connection 1's.
        driver.deliver(2, count: 100_000)
        let racing = driver.transfers.values.map(\.request).filter { $0.connection > 4 }
        #expect(racing.map(\.start) == [255_000], "half of the 490000 bytes connection 1 has left")
        #expect(racing.map(\.end) == [500_000])
        driver.runToEnd(chunk: 64 << 10)
        driver.checkEnd()
    }
}

extension InOrderMachineTests {
    /// The others wait for the range at the write position (paused beyond the window, not for
    /// the disk): the crawling connection that holds it is judged against the speeds of those
    /// that ended lately, dropped, and its range goes first to the next connection.
    @Test func aCrawlingRangeAtTheWritePositionIsDroppedWhileTheOthersWaitForIt() {
        var driver = MachineDriver(server: .init(size: 8_000_000)) { settings in
            settings.inOrderPieceSize = 500_000
        }
        driver.answer(1)
        for number in driver.transfers.keys.sorted() { driver.answer(number) }
        driver.now += DownloadStateMachine.tickInterval
        driver.deliver(1, count: 5_000)
        for number in [2, 3, 4] { driver.deliver(number, count: 500_000) }
        // Their next ranges lie beyond the window until connection 1's range is written.
        for number in driver.transfers.keys.sorted() where number != 1 {
            driver.answer(number)
            driver.pause(number, for: .order)
        }
        for _ in 0..<3 {
            driver.tick()
            driver.deliver(1, count: 5_000)
        }
        #expect(driver.transfers[1]?.cancelled == true)
        let writePosition = driver.placed.ranges.first?.upperBound
        driver.end(1)
        let next = driver.transfers.values.map(\.request).filter { $0.connection > 7 }
        #expect(next.map(\.start) == [writePosition])
        driver.runToEnd(chunk: 64 << 10)
        driver.checkEnd()
    }
}
