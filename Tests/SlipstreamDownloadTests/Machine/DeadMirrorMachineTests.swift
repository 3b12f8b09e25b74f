@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A dead mirror among live sources, once the download's URL has answered: the download
/// neither fails nor waits for it. The state machine against a model server, no I/O, a
/// simulated clock (which moves only by the watchdog's ticks when nothing else moves).
@Suite struct DeadMirrorMachineTests {
    typealias Machine = DownloadStateMachine

    static let first = "http://h/f"
    static let dead = "http://d/f"
    static let live = "http://m/f"

    static func driver(mirrors: [String], connections: Int = 8) -> MachineDriver {
        MachineDriver(
            server: .init(size: 1 << 20),
            settings: {
                $0.mirrors = mirrors
                $0.connections = connections
                $0.minimumSplitSize = 16 << 10
            })
    }

    static func retrying(_ driver: MachineDriver) -> Int {
        driver.events.filter { if case .retrying = $0 { true } else { false } }.count
    }

    /// Refused, unresolved, busy or without the file: the dead mirror's connections fail at
    /// once, it rests (or is dropped), and the others take its ranges with no wait.
    @Test(
        arguments: [
            HTTPError(.connect, url: dead, message: "Failed to connect"),
            HTTPError(.resolve, url: dead, message: "Could not resolve host"),
            HTTPError(.httpStatus, url: dead, message: "the server answered HTTP 404", status: 404),
            HTTPError(.httpStatus, url: dead, message: "the server answered HTTP 503", status: 503),
        ], [false, true])
    func aFailingMirrorCostsNoTime(error: HTTPError, beforeALiveOne: Bool) {
        var driver = Self.driver(mirrors: beforeALiveOne ? [Self.dead, Self.live] : [Self.live, Self.dead])
        if let status = error.status {
            driver.statuses[Self.dead] = status
        } else {
            driver.unreachable[Self.dead] = error
        }
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.now == 0)
        #expect(Self.retrying(driver) == 0)
        #expect(driver.machine.failureStreak == 0)
        // Dropped at once without the file; otherwise resting (the others took its ranges).
        let mirror = driver.machine.mirrors[beforeALiveOne ? 1 : 2]
        #expect(error.status == 404 ? mirror.dropped : mirror.dropped || mirror.failures > 0 && mirror.restingUntil > 0)
    }

    /// A mirror that never answers (its packets dropped) holds the ranges it was given until
    /// the download sees that its other sources deliver: then they take them, and the end does
    /// not wait for its stall timeout.
    @Test(arguments: [[dead], [dead, live], [live, dead]])
    func aSilentMirrorDoesNotHoldUpTheEnd(mirrors: [String]) {
        var driver = Self.driver(mirrors: mirrors)
        driver.silent = [Self.dead]
        driver.runToEnd()
        driver.checkEnd()
        #expect(driver.now < 3, "took \(driver.now) s")
        #expect(Self.retrying(driver) == 0)
    }

    /// A mirror that failed once (a 503) rests for the retry delay, its ranges going to the
    /// other source meanwhile, then gets a connection again.
    @Test func aMirrorRestsAfterAFailureThenServesAgain() {
        var driver = Self.driver(mirrors: [Self.live], connections: 2)
        driver.statuses[Self.live] = 503
        driver.answer(1)
        let toMirror = driver.transfers.keys.filter { driver.transfers[$0]!.request.url == Self.live }
        #expect(toMirror.count == 1)
        for number in toMirror { driver.answer(number) }
        driver.statuses[Self.live] = nil
        // Its range went to a connection of the URL at once.
        #expect(driver.transfers.count == 2)
        #expect(driver.transfers.values.allSatisfy { $0.request.url == Self.first })
        let rest = driver.machine.mirrors[1].restingUntil
        #expect(rest == Machine.Settings(url: Self.first).retryPolicy.baseDelay)
        // After its rest, the next free connection goes to it.
        driver.now = rest
        let running = driver.transfers.keys.sorted().first { !driver.transfers[$0]!.answered }!
        driver.answer(running)
        driver.deliver(running, count: 1 << 20)
        #expect(driver.transfers.values.contains { $0.request.url == Self.live })
        driver.runToEnd()
        driver.checkEnd()
        #expect(!driver.machine.mirrors[1].dropped)
    }
}
