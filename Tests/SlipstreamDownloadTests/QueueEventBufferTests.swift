@testable import SlipstreamDownload
import Testing

@Suite struct QueueEventBufferTests {
    static func progress(_ id: Int, _ bytes: Int64) -> DownloadQueueEvent {
        .progress(DownloadQueue.ID(rawValue: id), DownloadProgress(completedBytes: bytes, totalBytes: 100,
                                                                   bytesPerSecond: 0, activeConnections: 1))
    }

    static func describe(_ event: DownloadQueueEvent?) -> String {
        switch event {
        case .queued(let id)?: "queued \(id.rawValue)"
        case .progress(let id, let progress)?: "progress \(id.rawValue) \(progress.completedBytes)"
        case .paused(let id)?: "paused \(id.rawValue)"
        case nil: "end"
        default: "other"
        }
    }

    @Test func progressIsNewestWinsInItsPlaceAndNothingElseIsLost() {
        var buffer = QueueEventBuffer()
        buffer.append(.queued(DownloadQueue.ID(rawValue: 1)))
        for bytes in 1...1000 { buffer.append(Self.progress(1, Int64(bytes))) }
        buffer.append(.queued(DownloadQueue.ID(rawValue: 2)))
        buffer.append(Self.progress(2, 5))
        buffer.append(Self.progress(1, 1001))
        buffer.append(.paused(DownloadQueue.ID(rawValue: 1)))
        var seen: [String] = []
        while !buffer.isEmpty { seen.append(Self.describe(buffer.removeFirst())) }
        #expect(seen == ["queued 1", "progress 1 1001", "queued 2", "progress 2 5", "paused 1"])
        // Once read, a download's next snapshot is new again.
        buffer.append(Self.progress(1, 7))
        #expect(Self.describe(buffer.removeFirst()) == "progress 1 7")
        #expect(Self.describe(buffer.removeFirst()) == "end")
    }
}
