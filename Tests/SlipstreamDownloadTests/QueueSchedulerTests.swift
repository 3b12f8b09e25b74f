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
}
