@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// Connections move off a much slower mirror as soon as its first measure says so, before the
/// watchdog's first look: the state machine with scripted bytes and times, no clock.
@Suite struct MirrorSpeedMachineTests {
    static let fastURL = "http://h/f"
    static let slowURL = "http://m/f"

    static func driver() -> MachineDriver {
        var driver = MachineDriver(server: .init(size: 64_000_000)) { settings in
            settings.mirrors = [slowURL]
            settings.connections = 8
            settings.minimumSplitSize = 64 << 10
        }
        driver.answer(1)
        for number in driver.transfers.keys.sorted() { driver.answer(number) }
        return driver
    }

    /// Each running transfer gets bytes for `seconds` at its mirror's speed (bytes a second).
    static func run(_ driver: inout MachineDriver, for seconds: Double, fast: Double, slow: Double) {
        driver.now += seconds
        for number in driver.transfers.keys.sorted() where !driver.transfers[number]!.cancelled {
            let speed = driver.transfers[number]!.request.url == slowURL ? slow : fast
            driver.deliver(number, count: Int(speed * seconds))
        }
    }

    static func connections(_ driver: MachineDriver, on url: String) -> Int {
        driver.transfers.values.filter { $0.request.url == url && !$0.cancelled }.count
    }

    @Test func aMuchSlowerMirrorLosesItsConnectionsAtItsFirstMeasure() {
        var driver = Self.driver()
        // Nothing measured yet: the two share the connections alike.
        #expect(Self.connections(driver, on: Self.slowURL) == 4)
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 2e6)
        #expect(Self.connections(driver, on: Self.slowURL) == 4)
        // Once slices a tenth of a second apart have come, both are measured: long before the
        // watchdog's first look, the slow mirror's connections are closed...
        Self.run(&driver, for: 0.11, fast: 20e6, slow: 2e6)
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 2e6)
        #expect(driver.now < DownloadStateMachine.tickInterval)
        #expect(Self.connections(driver, on: Self.slowURL) == 0)
        let speeds = driver.machine.mirrors.map { $0.speed ?? 0 }
        #expect(speeds[1] * 2 < speeds[0])
        // ...and reopen on the fast one.
        for number in driver.transfers.keys.sorted() where driver.transfers[number]!.cancelled { driver.end(number) }
        #expect(Self.connections(driver, on: Self.fastURL) == 8)
        driver.runToEnd(chunk: 256 << 10)
        driver.checkEnd()
        #expect(!driver.events.contains { if case .retrying = $0 { true } else { false } })
    }

    /// On a loaded machine a fast mirror's connections may not have answered by the watchdog's
    /// first look while a slow mirror's stream: a connection without its first byte has no
    /// speed yet, so the fast mirror is not measured as 0 B/s (and never given a connection
    /// again, the whole file left to the slow one, as a full parallel test run once saw).
    @Test func aMirrorWhoseConnectionsHaveNotAnsweredIsNotMeasuredAsStopped() {
        // Here the URL started with is the slow one, and the mirror the fast one.
        let first = "http://h/f"
        let mirror = "http://m/f"
        var driver = MachineDriver(server: .init(size: 64_000_000)) { settings in
            settings.mirrors = [mirror]
            settings.connections = 8
            settings.minimumSplitSize = 64 << 10
        }
        // The first URL answers and its connections stream; the mirror's are asked for but
        // have not answered yet.
        driver.answer(1)
        let slow = driver.transfers.keys.sorted().filter { driver.transfers[$0]!.request.url == first }
        for number in slow { driver.answer(number) }
        #expect(Self.connections(driver, on: mirror) == 4)
        for _ in 0..<4 {
            driver.now += DownloadStateMachine.tickInterval / 2
            for number in slow where !driver.transfers[number]!.cancelled { driver.deliver(number, count: 16_384) }
            driver.tick(by: DownloadStateMachine.tickInterval / 2)
        }
        #expect(driver.machine.mirrors[1].speed == nil)
        #expect(Self.connections(driver, on: mirror) == 4)
        // Once they answer, they take their part.
        for number in driver.transfers.keys.sorted() where driver.transfers[number]!.request.url == mirror {
            driver.answer(number)
        }
        driver.runToEnd(chunk: 256 << 10)
        driver.checkEnd()
    }

    @Test func mirrorsOfCloseSpeedsKeepSharing() {
        var driver = Self.driver()
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 12e6)
        Self.run(&driver, for: 0.11, fast: 20e6, slow: 12e6)
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 12e6)
        #expect(Self.connections(driver, on: Self.slowURL) == 4)
        #expect(driver.machine.mirrors.allSatisfy { $0.speed != nil })
    }

    @Test func aMirrorLeftWithoutConnectionsIsMeasuredAgainLater() {
        var driver = Self.driver()
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 2e6)
        Self.run(&driver, for: 0.11, fast: 20e6, slow: 2e6)
        Self.run(&driver, for: 0.05, fast: 20e6, slow: 2e6)
        for number in driver.transfers.keys.sorted() where driver.transfers[number]!.cancelled { driver.end(number) }
        #expect(MirrorChoice.next(driver.machine.mirrorSources(at: driver.now)) == 0)
        // The fast mirror keeps delivering; ten seconds on, the slow one is forgotten, and
        // the next connection to open tries it again.
        while driver.now < DownloadStateMachine.mirrorMemory + 0.2 {
            driver.tick()
            for number in driver.transfers.keys.sorted() { driver.deliver(number, count: 100) }
        }
        #expect(driver.machine.mirrors[1].speed == nil)
        #expect(MirrorChoice.next(driver.machine.mirrorSources(at: driver.now)) == 1)
    }
}
