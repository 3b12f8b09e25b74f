@testable import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// The buffer behind every `EventStream`, with the queue's events (progress keyed by download).
@Suite struct EventBufferTests {
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
        var buffer = EventBuffer<DownloadQueueEvent>()
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

    /// A reader far behind (here: one that starts after the download ended) still reads the
    /// start and the end: only older unread progress is dropped.
    @Test func aLateReaderOfADownloadSeesItsStartAndItsEnd() async {
        let channel = EventChannel<DownloadEvent>()
        let info = DownloadInfo(path: "f", totalBytes: 100, segmented: true, effectiveURL: "http://h/f", resumedBytes: 0)
        channel.yield(.started(info))
        for bytes in 0...5000 {
            channel.yield(.progress(DownloadProgress(completedBytes: Int64(bytes), totalBytes: 100,
                                                     bytesPerSecond: 0, activeConnections: 1)))
        }
        channel.yield(.notice("n"))
        channel.yield(.failed(DownloadError(.cancelled, "c")))
        channel.finish()
        channel.yield(.notice("after the end"))
        var seen: [String] = []
        for await event in EventStream(channel) {
            switch event {
            case .started: seen.append("started")
            case .progress(let progress): seen.append("progress \(progress.completedBytes)")
            case .notice(let text): seen.append("notice \(text)")
            case .failed: seen.append("failed")
            default: seen.append("other")
            }
        }
        #expect(seen == ["started", "progress 5000", "notice n", "failed"])
    }

    /// A reader that never reads holds at most `limit` events: the oldest go first.
    @Test func aBufferNobodyReadsStaysBounded() {
        var buffer = EventBuffer<DownloadQueueEvent>(limit: 3)
        for id in 1...10 { buffer.append(.queued(DownloadQueue.ID(rawValue: id))) }
        var seen: [String] = []
        while !buffer.isEmpty { seen.append(Self.describe(buffer.removeFirst())) }
        #expect(seen == ["queued 8", "queued 9", "queued 10"])
    }
}
