@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A mirror far slower than the other must not make the download much slower than the fast
/// one alone, whichever of the two is asked first: the state machine against a model of time
/// (each connection gets its mirror's bytes a second in slices of 16 KiB, a new connection its
/// first byte a round trip after its request), no clock.
@Suite struct MirrorEndGameTests {
    static let firstURL = "http://h/f"
    static let mirrorURL = "http://m/f"

    /// Simulated seconds a download of `size` bytes takes, 8 connections, from the first URL
    /// alone (`speeds.mirror` nil) or with the mirror too, at `speeds` bytes a second a
    /// connection.
    static func simulate(size: Int64, speeds: (first: Double, mirror: Double?), roundTrip: Double = 0.002) -> Double {
        var driver = MachineDriver(server: .init(size: size)) { settings in
            settings.mirrors = speeds.mirror == nil ? [] : [mirrorURL]
            settings.connections = 8
            settings.minimumSplitSize = 128 << 10
        }
        let step = 0.001
        var requested: [Int: Double] = [:]
        var credit: [Int: Double] = [:]
        var nextTick = DownloadStateMachine.tickInterval
        while !driver.isDone, driver.now < 600 {
            driver.now += step
            for number in driver.transfers.keys.sorted() {
                guard let transfer = driver.transfers[number] else { continue }
                if transfer.cancelled {
                    driver.end(number)
                    continue
                }
                let since = requested[number] ?? driver.now
                requested[number] = since
                if !transfer.answered {
                    if driver.now - since >= roundTrip { driver.answer(number) }
                    continue
                }
                // Bytes come in slices of 16 KiB, as a server limiting its rate sends them: the
                // first with the answer, then one whenever the rate allows (a connection at
                // 32 KiB/s gets one every half second).
                let speed = transfer.request.url == mirrorURL ? speeds.mirror! : speeds.first
                credit[number, default: 16384] += speed * step
                while credit[number]! >= 16384, driver.transfers[number] != nil {
                    credit[number]! -= 16384
                    driver.deliver(number, count: 16384)
                }
            }
            if driver.now >= nextTick {
                nextTick += DownloadStateMachine.tickInterval
                driver.apply(driver.machine.tick(at: driver.now))
            }
            if driver.writerFinishing { driver.finishWriter() }
        }
        driver.checkEnd()
        return driver.now
    }

    /// 64 MiB at 20 MB/s a connection (0.43 s), and 16 MiB at 50 MB/s (0.05 s: each of the
    /// fast mirror's connections ends within a tenth of a second, as on loopback), with a
    /// mirror 10 to 1500 times slower, asked first or second: the slow one's connections move
    /// to the fast one as soon as both are measured, the fast one from connections that ended
    /// too. Before, a fast mirror whose connections all ended young was never measured, so the
    /// slow one kept the pieces it held below twice the split size: 2 s more at 128 KiB/s,
    /// 8 s at 32 KiB/s. What is left is the first measure's cost: half the connections for
    /// about a tenth of a second.
    @Test(arguments: [(64 << 20, 20e6), (16 << 20, 50e6)], [2e6, 128.0 * 1024, 32.0 * 1024])
    func aSlowMirrorHardlyMakesItSlowerThanTheFastOneAlone(file: (size: Int64, fast: Double), slow: Double) {
        let alone = Self.simulate(size: file.size, speeds: (file.fast, nil))
        for slowFirst in [false, true] {
            let both = Self.simulate(size: file.size, speeds: slowFirst ? (slow, file.fast) : (file.fast, slow))
            #expect(both <= alone * 1.05 + 0.15, "slow first: \(slowFirst); alone \(alone) s, with the slow mirror \(both) s")
        }
    }
}
