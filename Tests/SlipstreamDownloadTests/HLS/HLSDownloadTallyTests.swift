import Testing

@testable import SlipstreamDownload
@testable import SlipstreamMedia

/// The tally of an HLS download's resources, fed queue events by hand (no I/O).
@Suite struct HLSDownloadTallyTests {
    /// Four segments; resource 0 already on disk (1000 bytes), 1 to 3 fetched by downloads #1 to #3.
    private static func tally() -> HLSDownloadTally {
        var plan = HLSDownloadPlan(playlistURL: "http://h.test/index.m3u8")
        plan.resources = (0..<4).map { .init(url: "http://h.test/s\($0).ts", kind: .segment) }
        plan.pieces = (0..<4).map { .init(resource: $0, isSegment: true, sequence: Int64(10 + $0)) }
        plan.segmentCount = 4
        let ids = (1...3).map { DownloadQueue.ID(rawValue: $0) }
        return HLSDownloadTally(
            plan: plan, resources: Dictionary(uniqueKeysWithValues: zip(ids, 1...3)), resumedResources: 1, resumedBytes: 1000)
    }

    private static func id(_ number: Int) -> DownloadQueue.ID { DownloadQueue.ID(rawValue: number) }

    private static func result(_ bytes: Int64) -> DownloadResult {
        DownloadResult(url: "", path: "", bytes: bytes, segmented: false, bytesReceived: bytes, resumedBytes: 0)
    }

    private static func progress(_ step: HLSDownloadTally.Step) -> HLSDownloadProgress? {
        guard step.events.count == 1, case .progress(let progress) = step.events[0] else { return nil }
        return progress
    }

    @Test func progressCountsTheResourcesDoneAndTheBytesOfThoseUnderWay() {
        var tally = Self.tally()
        #expect(tally.progress == .init(completedResources: 1, resourceCount: 4, completedBytes: 1000, knownBytes: 1000, bytesPerSecond: 0))
        let first = tally.take(
            .progress(Self.id(1), .init(completedBytes: 300, totalBytes: 2000, bytesPerSecond: 50, activeConnections: 1)))
        #expect(
            Self.progress(first)
                == .init(completedResources: 1, resourceCount: 4, completedBytes: 1300, knownBytes: 3000, bytesPerSecond: 50))
        _ = tally.take(.progress(Self.id(2), .init(completedBytes: 100, totalBytes: nil, bytesPerSecond: 25, activeConnections: 1)))
        let finished = tally.take(.finished(Self.id(1), Self.result(2000)))
        #expect(
            Self.progress(finished)
                == .init(completedResources: 2, resourceCount: 4, completedBytes: 3100, knownBytes: 3100, bytesPerSecond: 25))
        #expect(!finished.stopOthers && !finished.allEnded)
        #expect(tally.fetched == 1)
        #expect(tally.progress.fractionCompleted == 0.5)
    }

    @Test func theFirstFailureStopsTheOthersAndNamesItsResource() {
        var tally = Self.tally()
        let error = DownloadError(.httpStatus, "http://h.test/s2.ts: the server answered 404", url: "http://h.test/s2.ts")
        let failed = tally.take(.failed(Self.id(2), error))
        #expect(failed.stopOthers && failed.events.isEmpty && !failed.allEnded)
        #expect(tally.failure?.message == "segment 12 (http://h.test/s2.ts): the server answered 404")
        #expect(tally.failure?.code == .httpStatus)
        let second = tally.take(.failed(Self.id(3), DownloadError(.network, "lost")))
        #expect(!second.stopOthers)
        #expect(tally.failure?.message.hasPrefix("segment 12 ") == true)
        #expect(tally.take(.finished(Self.id(1), Self.result(5))).allEnded)
        #expect(tally.allEnded)
    }

    @Test func aRetryNamesItsResource() {
        var tally = Self.tally()
        let step = tally.take(
            .retrying(Self.id(3), error: DownloadError(.network, "http://h.test/s3.ts: reset"), attempt: 2, delay: .milliseconds(1500)))
        guard step.events.count == 1, case .retrying(let error, let attempt, let delay) = step.events[0] else {
            Issue.record("\(step.events)")
            return
        }
        #expect(error.message == "segment 13 (http://h.test/s3.ts): reset")
        #expect(attempt == 2 && delay == .milliseconds(1500))
    }

    @Test func otherEventsAndOtherDownloadsChangeNothing() {
        var tally = Self.tally()
        #expect(tally.take(.queued(Self.id(1))).events.isEmpty)
        #expect(tally.take(.finished(Self.id(9), Self.result(5))).events.isEmpty)
        #expect(tally.progress.completedResources == 1)
    }

    @Test func aTallyWithNothingToFetchHasEnded() {
        var plan = HLSDownloadPlan(playlistURL: "http://h.test/index.m3u8")
        plan.resources = [.init(url: "http://h.test/s0.ts", kind: .segment)]
        #expect(HLSDownloadTally(plan: plan, resources: [:], resumedResources: 1, resumedBytes: 9).allEnded)
    }
}
