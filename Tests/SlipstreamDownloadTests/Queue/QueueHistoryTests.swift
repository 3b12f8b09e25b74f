@testable import SlipstreamDownload
import Testing

/// What a queue replays to a reader that starts late, and the outcomes it keeps, alone.
@Suite struct QueueHistoryTests {
    static func id(_ number: Int) -> DownloadQueue.ID { DownloadQueue.ID(rawValue: number) }
    static let request = DownloadQueue.Request(url: "http://h.test/a.bin", destination: .folder("."))
    static let info = DownloadInfo(path: "a.bin", totalBytes: 100, segmented: true, effectiveURL: "http://h.test/a.bin", resumedBytes: 0)
    static func progress(_ bytes: Int64) -> DownloadProgress {
        DownloadProgress(completedBytes: bytes, totalBytes: 100, bytesPerSecond: 1, activeConnections: 1)
    }
    static func result(_ id: Int) -> DownloadResult {
        DownloadResult(url: "http://h.test/\(id)", path: "\(id)", bytes: 100, segmented: true, bytesReceived: 100, resumedBytes: 0)
    }

    /// Each event in a few words, to compare.
    static func words(_ events: [DownloadQueueEvent]) -> [String] {
        events.map { event in
            switch event {
            case .queued(let id): "queued \(id)"
            case .paused(let id): "paused \(id)"
            case .started(let id, _): "started \(id)"
            case .progress(let id, let progress): "progress \(id) \(progress.completedBytes)"
            case .finished(let id, _): "finished \(id)"
            case .failed(let id, let error): "failed \(id) \(error.code)"
            case .retrying(let id, _, _, _), .notice(let id, _): "other \(id)"
            }
        }
    }

    @Test func eachDownloadIsReplayedWhereItIsInTheOrderOfAdding() {
        var history = QueueHistory(keptOutcomes: 10)
        let told: [DownloadQueueEvent] = [
            .queued(Self.id(1)), .queued(Self.id(2)), .queued(Self.id(3)), .started(Self.id(2), Self.info),
            .progress(Self.id(2), Self.progress(10)), .notice(Self.id(2), "n"), .progress(Self.id(2), Self.progress(20)),
            .paused(Self.id(3)), .started(Self.id(1), Self.info), .finished(Self.id(1), Self.result(1)),
            .queued(Self.id(4)), .paused(Self.id(4)), .queued(Self.id(4)),
        ]
        for event in told { history.tell(event, request: Self.request) }
        #expect(
            Self.words(history.replay())
                == ["finished #1", "started #2", "progress #2 20", "paused #3", "queued #4"])
        #expect(Self.words(history.replay(of: Self.id(2))) == ["started #2", "progress #2 20"])
        #expect(Self.words(history.replay(of: Self.id(1))) == ["finished #1"])
        #expect(history.replay(of: Self.id(9)).isEmpty)
    }

    @Test func aPausedDownloadForgetsItsProgressAndStartsAgain() {
        var history = QueueHistory(keptOutcomes: 10)
        for event: DownloadQueueEvent in [
            .queued(Self.id(1)), .started(Self.id(1), Self.info), .progress(Self.id(1), Self.progress(50)), .paused(Self.id(1)),
        ] {
            history.tell(event, request: Self.request)
        }
        #expect(Self.words(history.replay()) == ["paused #1"])
        // Progress is told only of a started download.
        history.tell(.progress(Self.id(1), Self.progress(60)), request: Self.request)
        #expect(Self.words(history.replay()) == ["paused #1"])
        history.tell(.queued(Self.id(1)), request: Self.request)
        history.tell(.started(Self.id(1), Self.info), request: Self.request)
        #expect(Self.words(history.replay()) == ["started #1"])
    }

    @Test func theOutcomesAreTheNewestAndCanBeTaken() {
        var history = QueueHistory(keptOutcomes: 3)
        for number in 1...5 {
            history.tell(.queued(Self.id(number)), request: Self.request)
            history.tell(
                number == 4 ? .failed(Self.id(number), DownloadError(.cancelled, "c")) : .finished(Self.id(number), Self.result(number)),
                request: Self.request)
        }
        #expect(history.outcomes.map(\.id.rawValue) == [3, 4, 5])
        #expect(history.outcomes[1].result.failureError?.code == .cancelled)
        #expect(Self.words(history.replay()) == ["finished #3", "failed #4 cancelled", "finished #5"])
        #expect(history.removeOutcomes().count == 3)
        #expect(history.outcomes.isEmpty && history.replay().isEmpty)
        var keepsNone = QueueHistory(keptOutcomes: 0)
        keepsNone.tell(.finished(Self.id(1), Self.result(1)), request: Self.request)
        #expect(keepsNone.outcomes.isEmpty)
    }
}
