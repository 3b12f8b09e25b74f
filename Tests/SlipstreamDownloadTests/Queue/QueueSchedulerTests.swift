@testable import SlipstreamDownload
import Testing

@Suite struct QueueSchedulerTests {
    static func id(_ number: Int) -> DownloadQueue.ID { DownloadQueue.ID(rawValue: number) }

    static func scheduler(_ hosts: [String], jobs: Int) -> QueueScheduler {
        var scheduler = QueueScheduler(maxConcurrentDownloads: jobs)
        for (index, host) in hosts.enumerated() { scheduler.add(id(index + 1), host: host) }
        return scheduler
    }

    @Test func startsInOrderUpToTheLimit() {
        var scheduler = Self.scheduler(["a", "a", "a", "a"], jobs: 2)
        #expect(scheduler.decide { _ in 10 } == .init(start: [Self.id(1), Self.id(2)]))
        #expect(scheduler.decide { _ in 10 } == .init())
        scheduler.remove(Self.id(1))
        #expect(scheduler.decide { _ in 10 } == .init(start: [Self.id(3)]))
        #expect(scheduler.activeCount == 2)
        #expect(!scheduler.isIdle)
    }

    @Test func aFullHostWaitsAndAnotherHostTakesTheSlot() {
        var scheduler = Self.scheduler(["a", "a", "b", "a"], jobs: 3)
        let free = ["a": 1, "b": 5]
        let decision = scheduler.decide { free[$0]! }
        #expect(decision.start == [Self.id(1), Self.id(3)])
        #expect(decision.waitingHosts == ["a": 2])
    }

    @Test func pausedDownloadsAreSkippedAndResumedInTheirPlace() {
        var scheduler = Self.scheduler(["a", "a", "a"], jobs: 1)
        scheduler.set(Self.id(1), to: .paused)
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(2)])
        scheduler.set(Self.id(1), to: .queued)
        scheduler.remove(Self.id(2))
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(1)])
        scheduler.set(Self.id(1), to: .pausing)
        #expect(scheduler.decide { _ in 9 }.start.isEmpty)  // a pausing download holds its slot
        scheduler.set(Self.id(1), to: .paused)
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(3)])
        scheduler.remove(Self.id(3))
        #expect(scheduler.isIdle)  // only a paused one is left
    }

    @Test func movingChangesWhatStartsNext() {
        var scheduler = Self.scheduler(["a", "a", "a", "a"], jobs: 1)
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(1)])
        scheduler.move(Self.id(4), to: 0)
        scheduler.move(Self.id(2), to: 99)
        #expect(scheduler.items.map(\.id.rawValue) == [4, 1, 3, 2])
        scheduler.remove(Self.id(1))
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(4)])
    }

    @Test func aLowerLimitLetsTheRunningFinishAndStartsNothingUntilUnderIt() {
        var scheduler = Self.scheduler(["a", "a", "a", "a", "a"], jobs: 3)
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(1), Self.id(2), Self.id(3)])
        scheduler.maxConcurrentDownloads = 1
        scheduler.remove(Self.id(1))
        #expect(scheduler.decide { _ in 9 }.start.isEmpty)
        scheduler.remove(Self.id(2))
        #expect(scheduler.decide { _ in 9 }.start.isEmpty)
        scheduler.remove(Self.id(3))
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(4)])
        // A higher one starts the waiting at once.
        scheduler.maxConcurrentDownloads = 2
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(5)])
    }

    /// aria2's positions count the waiting downloads only (queued or paused): a running one
    /// neither has a waiting position nor moves, and keeps its place when others move.
    @Test func waitingPositionsSkipTheRunningDownloads() {
        var scheduler = Self.scheduler(["a", "a", "a", "a", "a"], jobs: 2)
        scheduler.move(Self.id(3), to: 0)
        #expect(scheduler.decide { _ in 9 }.start == [Self.id(3), Self.id(1)])
        scheduler.set(Self.id(5), to: .paused)
        // Order 3 (running), 1 (running), 2, 4, 5 (paused).
        #expect(scheduler.waitingCount == 3)
        #expect([1, 2, 3, 4, 5].map { scheduler.waitingPosition(of: Self.id($0)) } == [nil, 0, nil, 1, 2])
        #expect(scheduler.move(Self.id(5), toWaitingPosition: 0) == 0)
        #expect(scheduler.items.map(\.id.rawValue) == [3, 1, 5, 2, 4])
        #expect(scheduler.move(Self.id(5), toWaitingPosition: 99) == 2)
        #expect(scheduler.items.map(\.id.rawValue) == [3, 1, 2, 4, 5])
        #expect(scheduler.move(Self.id(4), toWaitingPosition: -3) == 0)
        #expect(scheduler.items.map(\.id.rawValue) == [3, 1, 4, 2, 5])
        #expect(scheduler.move(Self.id(1), toWaitingPosition: 0) == nil)
        #expect(scheduler.move(Self.id(9), toWaitingPosition: 0) == nil)
        #expect(scheduler.items.map(\.id.rawValue) == [3, 1, 4, 2, 5])
    }

    @Test func aChangedHostIsTheOneWhosePermitsCount() {
        var scheduler = Self.scheduler(["a", "a"], jobs: 2)
        scheduler.setHost(Self.id(2), to: "b")
        let decision = scheduler.decide { $0 == "a" ? 1 : 0 }
        #expect(decision.start == [Self.id(1)])
        #expect(decision.waitingHosts == ["b": 1])
    }

    /// The kept count of slot holders always equals a count of the phases, through 2000 random
    /// operations of every kind.
    @Test func theActiveCountFollowsEveryChange() {
        var random = SystemRandomNumberGenerator()
        var scheduler = Self.scheduler((0..<20).map { "h\($0 % 3)" }, jobs: 4)
        var next = 21
        let phases: [QueueScheduler.Phase] = [.queued, .running, .pausing, .paused]
        for _ in 0..<2000 {
            let id = Self.id(Int.random(in: 1..<next, using: &random))
            switch Int.random(in: 0..<5, using: &random) {
            case 0: _ = scheduler.decide { _ in Int.random(in: 0..<3, using: &random) }
            case 1: scheduler.set(id, to: phases.randomElement(using: &random)!)
            case 2: scheduler.remove(id)
            case 3: scheduler.move(id, to: Int.random(in: 0..<25, using: &random))
            default:
                scheduler.add(Self.id(next), host: "h\(next % 3)", paused: Bool.random(using: &random))
                next += 1
            }
            #expect(scheduler.activeCount == scheduler.items.filter { $0.phase.isActive }.count)
        }
    }
}
