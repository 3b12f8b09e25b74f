@testable import SlipstreamDownload
import Testing

/// The download machine with a reader (a player reading the file while it downloads),
/// simulated without I/O over many orders of arrival (`ListeningSimulation`): the reader's
/// window comes first and is never starved, a seek ahead is served in about one request's
/// time, and the whole file still comes, at nearly the speed of a download nobody reads.
@Suite struct ReaderMachineTests {
    /// 320 kbit/s, as the benchmark's MP3.
    static let rate = 40_000.0
    static let size: Int64 = 24_000_000

    @Test(arguments: 1...12 as ClosedRange<UInt64>)
    func everyConnectionSlowerThanTheReaderTogetherFasterPlaysWithoutUnderrun(seed: UInt64) {
        // Each connection brings 55-90% of the bit rate; eight of them several times it.
        var simulation = ListeningSimulation(
            size: Self.size, connections: 8, speeds: (0.55 * Self.rate)...(0.9 * Self.rate), rate: Self.rate,
            prebuffer: Int64(Self.rate), seed: seed)
        simulation.run()
        simulation.driver.checkEnd()
        #expect(simulation.underruns == 0)
        // First audio: a second of it, brought by several connections at once, in under 2 s.
        #expect((simulation.firstAudio ?? .infinity) < 2)
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func aSeekAheadIsServedInAboutOneRequestWhileEveryConnectionIsBusy(seed: UInt64) {
        // Fast connections: every one is busy with the rest of the file when the reader jumps.
        var simulation = ListeningSimulation(
            size: Self.size, connections: 8, speeds: (200_000)...(400_000), setupTime: 0.05, rate: Self.rate,
            prebuffer: 64 << 10, seed: seed)
        simulation.run(until: 2)
        #expect(simulation.driver.transfers.count == 8)
        let target = Self.size * 3 / 4 + 12_345
        #expect(!simulation.driver.placed.overlaps(target..<(target + 1)))
        simulation.seek(to: target)
        simulation.run(stopWhen: { $0.lastSeek?.served != nil })
        let served = (simulation.lastSeek?.served ?? .infinity) - 2
        // One set-up, the 64 KiB at the head at the slowest speed, and a tick's slack.
        #expect(served < 0.05 + Double(64 << 10) / 200_000 + 0.1, "served after \(served) s")
        simulation.run()
        simulation.driver.checkEnd()
        #expect(simulation.underruns == 0)
    }

    @Test func aSeekIntoWrittenBytesNeedsNoRequest() {
        var simulation = ListeningSimulation(
            size: Self.size, connections: 8, speeds: (200_000)...(400_000), rate: Self.rate, prebuffer: 64 << 10,
            seed: 3)
        simulation.run(until: 3)
        guard let run = simulation.driver.placed.ranges.first(where: { $0.count > 256 << 10 && $0.lowerBound > 0 }) else {
            Issue.record("nothing written away from the head: \(simulation.driver.placed.ranges)")
            return
        }
        let requestsBefore = simulation.requested.count
        simulation.seek(to: run.lowerBound + 1000)
        simulation.advance(by: 0.01)
        #expect(simulation.lastSeek?.served == simulation.now)
        #expect(simulation.requested.count == requestsBefore)
    }

    /// (Even speeds: how unequal ones end is the end game's matter, read or not.)
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func aReaderCostsTheWholeFileLittleTime(seed: UInt64) {
        let speeds = (0.7 * Self.rate)...(0.72 * Self.rate)
        var read = ListeningSimulation(
            size: Self.size, connections: 8, speeds: speeds, rate: Self.rate, prebuffer: Int64(Self.rate), seed: seed)
        var alone = ListeningSimulation(
            size: Self.size, connections: 8, speeds: speeds, rate: Self.rate, prebuffer: Int64(Self.rate),
            readsFrom: nil, seed: seed)
        read.run()
        alone.run()
        read.driver.checkEnd()
        alone.driver.checkEnd()
        let ratio = (read.finished ?? .infinity) / (alone.finished ?? 1)
        #expect(ratio <= 1.05, "with a reader \(read.finished ?? -1) s, alone \(alone.finished ?? -1) s")
    }

    /// Four connections each on a quarter of 8 MiB, a reader at the start reading at `rate`, and
    /// a second reader waiting at 7 MiB and a bit: a connection makes room, and one asks from
    /// exactly where the second reader waits.
    static func secondReaderWaitsFarAhead(firstReaderRate rate: Double?) -> MachineDriver {
        var driver = MachineDriver(server: .init(size: 8 << 20)) { settings in
            settings.connections = 4
            settings.minimumSplitSize = 1 << 20
        }
        driver.answer(1)
        for number in driver.transfers.keys.sorted() { driver.answer(number) }
        #expect(driver.transfers.count == 4)
        driver.apply(driver.machine.readerMoved(1, to: ReaderWindow(offset: 0, bytesPerSecond: rate), at: driver.now))
        driver.apply(driver.machine.readerMoved(2, to: ReaderWindow(offset: Self.far, bytesPerSecond: nil), at: driver.now))
        for number in driver.transfers.keys.sorted() where driver.transfers[number]!.cancelled { driver.end(number) }
        return driver
    }

    static let far = Int64(7 << 20) + 12_345

    @Test func aReaderFarAheadGetsAConnectionThatWorkedForNoReader() {
        var driver = Self.secondReaderWaitsFarAhead(firstReaderRate: nil)
        #expect(driver.transfers.values.contains { $0.request.start == Self.far })
        // The one that made room worked outside both windows: the quarter from 4 MiB.
        #expect(!driver.transfers.values.contains { $0.request.start == 4 << 20 })
        driver.runToEnd()
        driver.checkEnd()
    }

    @Test func aReaderThatTakesEveryWindowDoesNotStarveAnotherThatWaits() {
        // The first reader's window covers the whole file (a huge rate): every connection
        // works for it, and one that brings no reader's head makes room.
        var driver = Self.secondReaderWaitsFarAhead(firstReaderRate: 100_000_000)
        #expect(driver.transfers.values.contains { $0.request.start == Self.far })
        #expect(driver.transfers.values.contains { $0.request.start == 0 })
        driver.runToEnd()
        driver.checkEnd()
    }
}
