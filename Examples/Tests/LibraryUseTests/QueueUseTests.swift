import SlipstreamDownload
import SlipstreamHTTP
import Testing

/// A queue as a program meets it: the outcomes of what ended, a reader that starts late,
/// several readers, a request's headers and login, one file asked for twice, Task cancellation.
@Suite(.enabled(if: Services.available, Services.skipReason), .timeLimit(.minutes(2)))
struct QueueUseTests {
    @Test func waitingReturnsEveryOutcomeAndALateReaderStartsFromThem() async throws {
        let name = try Services.serve("queued.bin", size: 1 << 20)
        let folder = try Services.folder()
        let queue = DownloadQueue()
        let early = Task {
            var ends = 0
            for await event in queue.events() {
                switch event {
                case .finished, .failed: ends += 1
                default: continue
                }
                if ends == 2 { break }
            }
            return ends
        }
        let good = try queue.add(.init(url: Services.url(name), destination: .folder(folder)))
        let missing = try queue.add(.init(url: Services.url("examples-missing.bin"), destination: .folder(folder)))
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.map(\.id) == [good, missing] || outcomes.map(\.id) == [missing, good])
        for outcome in outcomes {
            switch (outcome.id, outcome.result) {
            case (good, .success(let result)): #expect(result.path == folder + "/" + name)
            case (missing, .failure(let error)): #expect(error.url == Services.url("examples-missing.bin"))
            default: Issue.record("\(outcome.id): \(outcome.result)")
            }
        }
        #expect(queue.downloads.isEmpty)
        #expect(await early.value == 2)
        // A reader that starts after the end gets the ends first, in the order of adding.
        var late = queue.events().makeAsyncIterator()
        for id in [good, missing] {
            switch await late.next() {
            case .finished(let told, _)?, .failed(let told, _)?: #expect(told == id)
            case let other: Issue.record("not an end: \(String(describing: other))")
            }
        }
        // One download's events, after its end: the end, then nothing.
        var ofGood: [DownloadQueueEvent] = []
        for await event in queue.events(for: good) { ofGood.append(event) }
        #expect(ofGood.count == 1)
        // A long-running queue takes the outcomes as it goes.
        #expect(queue.removeOutcomes().count == 2 && queue.outcomes.isEmpty)
    }

    @Test func aRequestCarriesItsHeadersAndLogin() async throws {
        let name = try Services.serve("queue-guarded.bin", size: 2 << 20)
        let folder = try Services.folder()
        var configuration = DownloadQueue.Configuration()
        configuration.download.minimumSplitSize = 256 << 10
        let queue = DownloadQueue(configuration: configuration)
        let header = try queue.add(
            .init(
                url: Services.url(name, location: "need-header"), destination: .file(folder + "/h.bin"),
                headers: ["X-Slipstream-Token": "let-me-in"]))
        let login = try queue.add(
            .init(
                url: Services.url(name, location: "need-login"), destination: .file(folder + "/l.bin"),
                credentials: Credentials(user: "test", password: "secret")))
        let without = try queue.add(.init(url: Services.url(name, location: "need-header"), destination: .file(folder + "/n.bin")))
        let outcomes = try await queue.waitUntilIdle()
        for outcome in outcomes {
            switch outcome.result {
            case .success(let result):
                #expect(outcome.id != without)
                #expect(result.bytes == 2 << 20 && result.segmented)
            case .failure(let error):
                #expect(outcome.id == without, "\(error)")
            }
        }
        #expect(Set(outcomes.map(\.id)) == [header, login, without])
    }

    @Test func aSecondDownloadToOneFileIsRefusedUntilTheFirstEnds() async throws {
        let name = try Services.serve("twice.bin", size: 4 << 20)
        let folder = try Services.folder()
        var configuration = DownloadQueue.Configuration()
        configuration.download.overwrite = true
        let queue = DownloadQueue(configuration: configuration)
        let slow = Services.url(name, location: "rate", query: "rate=256k")
        let first = try queue.add(.init(url: slow, destination: .file(folder + "/one.bin")))
        #expect {
            try queue.add(.init(url: Services.url(name), destination: .file(folder + "/one.bin")))
        } throws: { ($0 as? DownloadError)?.code == .output }
        #expect(queue.downloads.map(\.id) == [first])
        queue.cancelAndRemoveFiles(first)
        try await queue.waitUntilIdle()
        // It has ended: the file is free.
        let second = try queue.add(.init(url: Services.url(name), destination: .file(folder + "/one.bin")))
        let outcome = try await queue.waitUntilIdle().last
        #expect(outcome?.id == second)
        #expect(try outcome?.result.get().bytes == 4 << 20)
    }

    /// Cancelling the Task that waits for the queue stops its downloads (each keeps its files
    /// to be resumed) and throws `.cancelled`.
    @Test func cancellingTheWaitingTaskStopsTheQueue() async throws {
        let name = try Services.serve("stopped.bin", size: 8 << 20)
        let folder = try Services.folder()
        let queue = DownloadQueue()
        // 16 s at least: stopped long before its end, however late this task runs.
        let slow = Services.url(name, location: "rate", query: "rate=64k")
        let id = try queue.add(.init(url: slow, destination: .folder(folder)))
        for await event in queue.events(for: id) {
            if case .progress(_, let progress) = event, progress.completedBytes > 0 { break }
        }
        let waiting = Task { try await queue.waitUntilIdle() }
        waiting.cancel()
        switch await waiting.result {
        case .success: Issue.record("the wait was not cancelled")
        case .failure(let error): #expect((error as? DownloadError)?.code == .cancelled)
        }
        // Stopped, back to waiting: what a later run resumes.
        #expect(queue.downloads.map(\.phase) == [.queued])
        #expect(try Services.contents(of: folder) == [name + ".part", name + ".part.slipstream"])
    }
}
