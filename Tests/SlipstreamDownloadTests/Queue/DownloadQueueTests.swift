import Foundation
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization
import Testing
import TestSupport

/// The queue against the in-test server: every "while running" moment is made by a response
/// held at a gate, never by the machine's speed.
/// Each test waits at gates and for events: the time limit turns a lost event into a failure.
@Suite(.timeLimit(.minutes(5))) struct DownloadQueueTests {
    /// A server of `files` (by path) whose responses stop after `holdAfter` bytes until `gate` opens.
    static func server(_ files: [String: [UInt8]], holdAfter: Int? = nil, gate: Gate? = nil) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            guard let content = files[request.path] else { return .init(status: 404) }
            var response = TestHTTPServer.Response.file(content, for: request)
            response.holdAfter = holdAfter
            response.gate = gate
            return response
        }
    }

    static func queue(jobs: Int, perHost: Int = 16, connections: Int = 4) -> DownloadQueue {
        var configuration = DownloadQueue.Configuration()
        configuration.maxConcurrentDownloads = jobs
        configuration.connectionsPerHost = perHost
        configuration.download = .heldAtAGate
        configuration.download.connections = connections
        configuration.download.minimumSplitSize = 64 << 10
        return configuration.build()
    }

    /// Reads `events` until `matching` is seen; an end not matched (a failure, or a download
    /// finished before the test could act) ends the wait as an issue, and so does the time
    /// limit, naming what came meanwhile. One reader for a whole test: `events` of a queue has
    /// no history, so a reader made for each wait would miss what came between two waits.
    static func wait(for events: inout DownloadQueueEvents.AsyncIterator, _ matching: (DownloadQueueEvent) -> Bool) async {
        var seen: [String] = []
        while let event = await events.next() {
            if matching(event) { return }
            switch event {
            case .failed(let id, let error): Issue.record("download \(id) failed: \(error)")
            case .finished(let id, _): Issue.record("download \(id) finished")
            default:
                if seen.count < 50 { seen.append("\(event)".prefix(120).description) }
                continue
            }
            return
        }
        Issue.record("the events ended before a match; seen: \(seen)")
    }

    @Test func theConnectionLimitOfAHostHoldsAcrossDownloads() async throws {
        let gate = Gate()
        var files: [String: [UInt8]] = [:]
        // Each file a different slice of one random block (making many is slow in a debug build).
        let block = TestFiles.fastRandomBytes(1 << 20, seed: 2)
        for index in 0..<24 { files["/f\(index).bin"] = Array(block[(index * 7919)...].prefix((128 + 24 * index) << 10)) }
        let server = try Self.server(files, holdAfter: 16 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 8, perHost: 6)
        for index in 0..<24 {
            try queue.add(.init(url: server.url("/f\(index).bin"), destination: .file(folder + "/f\(index).bin")))
        }
        // Nothing can end while the gate is closed: the limit is reached, and no more is asked.
        while server.requests.count < 6 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(queue.limiter.connections(to: HostConnectionLimiter.host(of: server.url("/"))) == 6)
        gate.open()
        try await queue.waitUntilIdle()
        #expect(server.maxResponsesInProgress == 6)
        #expect(queue.downloads.isEmpty)
        for (path, content) in files {
            let exact = TestFiles.contents(of: folder + path, equal: content)
            #expect(exact, "\(path)")
        }
        #expect(queue.limiter.connections(to: HostConnectionLimiter.host(of: server.url("/"))) == 0)
    }

    /// Downloads ending together on several threads: once `waitUntilIdle` returns, every end
    /// has been told (a reader cancelled then still gets them all). Before, the last of two
    /// ends could wake the waiter while the first's event was not out yet ("198 of 200 done").
    @Test func everyEndIsToldBeforeTheQueueIsIdle() async throws {
        let content = TestFiles.fastRandomBytes(4 << 10, seed: 9)
        for round in 0..<100 {  // without the fix, about 1 round in 450 failed
            let gate = Gate()
            let server = try Self.server(["/e.bin": content], holdAfter: 1 << 10, gate: gate)
            defer { server.stop() }
            let folder = try TestFiles.makeTemporaryFolder()
            let queue = Self.queue(jobs: 16, connections: 1)
            let events = queue.events { if case .finished = $0 { true } else { false } }
            let reader = Task {
                var ends = 0
                for await _ in events { ends += 1 }
                return ends
            }
            for index in 0..<16 {
                try queue.add(.init(url: server.url("/e.bin"), destination: .file(folder + "/e\(index).bin")))
            }
            // All held at the gate, then all let go at once: they end together.
            while server.requests.count < 16 { try await Task.sleep(for: .milliseconds(2)) }
            gate.open()
            try await queue.waitUntilIdle()
            reader.cancel()
            #expect(await reader.value == 16, "round \(round)")
        }
    }

    @Test func pauseKeepsTheFileAndFreesTheConnectionsAndResumeCarriesOn() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 3)
        let server = try Self.server(["/p.bin": content], holdAfter: 512 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 2)
        var events = queue.events().makeAsyncIterator()
        let id = try queue.add(.init(url: server.url("/p.bin"), destination: .file(folder + "/p.bin")))
        await Self.wait(for: &events) {
            if case .progress(id, let progress) = $0 { return progress.completedBytes >= 512 << 10 }
            return false
        }
        queue.pause(id)
        await Self.wait(for: &events) { if case .paused(id) = $0 { true } else { false } }
        #expect(queue.downloads.map(\.phase) == [.paused])
        #expect(queue.limiter.connections(to: HostConnectionLimiter.host(of: server.url("/"))) == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/p.bin.part.slipstream"))
        try await queue.waitUntilIdle()  // a paused download leaves the queue idle
        gate.open()
        let requestsBefore = server.requests.count
        queue.resume(id)
        var finished: DownloadResult?
        await Self.wait(for: &events) {
            if case .finished(id, let result) = $0 { finished = result }
            return finished != nil
        }
        #expect(finished?.resumedBytes ?? 0 >= 512 << 10)
        // The first request after resuming starts where the kept bytes end, proving the file unchanged.
        let resumed = server.requests[requestsBefore]
        #expect(resumed.headers["if-range"] == "\"v1\"")
        #expect(resumed.range?.start ?? 0 > 0)
        let exact = TestFiles.contents(of: folder + "/p.bin", equal: content)
        #expect(exact)
    }

    @Test func cancelKeepsOrRemovesTheFilesAndTakesTheDownloadOut() async throws {
        let gate = Gate()
        defer { gate.open() }
        let content = TestFiles.fastRandomBytes(2 << 20, seed: 4)
        let server = try Self.server(["/a.bin": content, "/b.bin": content], holdAfter: 256 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 2)
        var events = queue.events().makeAsyncIterator()
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let b = try queue.add(.init(url: server.url("/b.bin"), destination: .file(folder + "/b.bin")))
        var started: Set<DownloadQueue.ID> = []
        await Self.wait(for: &events) {
            if case .started(let id, _) = $0 { started.insert(id) }
            return started.count == 2
        }
        let aEvents = queue.events(for: a)
        queue.cancel(a)
        queue.cancelAndRemoveFiles(b)
        var failures: [DownloadQueue.ID: DownloadError] = [:]
        while let event = await events.next() {
            if case .failed(let id, let error) = event { failures[id] = error }
            if failures.count == 2 { break }
        }
        #expect(failures[a]?.code == .cancelled && failures[b]?.code == .cancelled)
        // The download's own events end with its failure.
        var last: DownloadQueueEvent?
        for await event in aEvents { last = event }
        if case .failed(a, _)? = last {} else { Issue.record("a's events did not end with its failure") }
        #expect(queue.downloads.isEmpty)
        // A cancel keeps what a resume needs, and no more: the file and its durable record.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["a.bin.part", "a.bin.part.slipstream"])
        #expect(failures[a]?.resumableFile == folder + "/a.bin.part")
        gate.open()
        // Added again, it resumes from them.
        let again = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let outcome = try await queue.waitUntilIdle().first { $0.id == again }
        #expect(try outcome?.result.get().resumedBytes ?? 0 > 0)
    }

    @Test func aMovedDownloadStartsNextAndAPausedOneWaits() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(300 << 10, seed: 5)
        let names = ["a", "b", "c", "d"]
        let server = try Self.server(
            Dictionary(uniqueKeysWithValues: names.map { ("/\($0).bin", content) }),
            holdAfter: 100 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 1, connections: 1)
        var events = queue.events().makeAsyncIterator()
        var ids: [String: DownloadQueue.ID] = [:]
        for name in names {
            ids[name] = try queue.add(.init(url: server.url("/\(name).bin"), destination: .file(folder + "/\(name).bin")))
        }
        await Self.wait(for: &events) { if case .started(ids["a"]!, _) = $0 { true } else { false } }
        // While a runs (held at the gate): d goes first, c waits paused.
        queue.move(ids["d"]!, to: 0)
        queue.pause(ids["c"]!)
        #expect(queue.downloads.map(\.id) == [ids["d"]!, ids["a"]!, ids["b"]!, ids["c"]!])
        gate.open()
        try await queue.waitUntilIdle()
        #expect(server.requests.map(\.path) == ["/a.bin", "/d.bin", "/b.bin"])
        #expect(queue.downloads.map(\.phase) == [.paused])
        queue.resume(ids["c"]!)
        try await queue.waitUntilIdle()
        #expect(server.requests.map(\.path).last == "/c.bin")
        for name in names {
            let exact = TestFiles.contents(of: folder + "/\(name).bin", equal: content)
            #expect(exact, "\(name)")
        }
    }

    @Test func theSessionListsWhatIsNotFinished() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(1 << 20, seed: 6)
        let server = try Self.server(
            ["/a.bin": content, "/b.bin": content, "/c.bin": content],
            holdAfter: 128 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadQueue.Configuration()
        configuration.maxConcurrentDownloads = 1
        configuration.download = .heldAtAGate
        configuration.sessionPath = folder + "/session.txt"
        let queue = DownloadQueue(configuration: configuration)
        var events = queue.events().makeAsyncIterator()
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .folder(folder)))
        let b = try queue.add(
            .init(
                url: server.url("/b.bin"), mirrors: [server.url("/b.bin?m")],
                destination: .file(folder + "/bee.bin"), checksum: try Checksum(parsing: "md5=" + String(repeating: "0", count: 32))))
        try queue.add(.init(url: server.url("/c.bin"), destination: .folder(folder)), paused: true)
        await Self.wait(for: &events) { if case .started(a, _) = $0 { true } else { false } }
        try await queue.saveSession()
        let saved = try SessionFile.read(folder + "/session.txt")
        #expect(saved.isSession)
        #expect(
            saved.entries.map(\.urls) == [[server.url("/a.bin")], [server.url("/b.bin"), server.url("/b.bin?m")], [server.url("/c.bin")]])
        #expect(saved.entries.map(\.out) == ["a.bin", "bee.bin", nil])
        #expect(saved.entries.map(\.dir) == [folder, folder, folder])
        #expect(saved.entries.map(\.paused) == [false, false, true])
        #expect(saved.entries[1].checksum != nil)
        queue.cancel(b)
        gate.open()
        try await queue.waitUntilIdle()
        try await queue.saveSession()
        #expect(try SessionFile.read(folder + "/session.txt").entries.map(\.urls) == [[server.url("/c.bin")]])
    }
}

extension DownloadQueueTests {
    @Test func theOutcomesAreKeptAndALateReaderStartsFromThem() async throws {
        let content = TestFiles.fastRandomBytes(64 << 10, seed: 10)
        let server = try Self.server(["/a.bin": content])
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 2)
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let missing = try queue.add(.init(url: server.url("/missing.bin"), destination: .file(folder + "/m.bin")))
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.map(\.id).sorted() == [a, missing])
        #expect(try outcomes.first { $0.id == a }?.result.get().path == folder + "/a.bin")
        if case .failure(let error)? = outcomes.first(where: { $0.id == missing })?.result {
            #expect(error.url == server.url("/missing.bin"))
        } else {
            Issue.record("the missing file did not fail")
        }
        #expect(queue.outcomes.map(\.id) == outcomes.map(\.id) && queue.downloads.isEmpty)
        // A reader that starts now gets each end first; one of an ended download, its end only.
        var events = queue.events().makeAsyncIterator()
        var ends: [DownloadQueue.ID] = []
        for _ in 0..<2 {
            switch await events.next() {
            case .finished(let id, _)?, .failed(let id, _)?: ends.append(id)
            case let other: Issue.record("not an end: \(String(describing: other))")
            }
        }
        #expect(ends == [a, missing])
        var ofA: [DownloadQueueEvent] = []
        for await event in queue.events(for: a) { ofA.append(event) }
        if ofA.count != 1 { Issue.record("a's events: \(ofA)") }
        if case .finished(a, _)? = ofA.first {} else { Issue.record("a's events: \(ofA)") }
        #expect(queue.removeOutcomes().count == 2)
        #expect(queue.outcomes.isEmpty)
    }

    @Test func aLateReaderStartsFromWhereEachDownloadIs() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(512 << 10, seed: 11)
        let server = try Self.server(["/a.bin": content, "/b.bin": content, "/c.bin": content], holdAfter: 128 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Self.queue(jobs: 1, connections: 1)
        var early = queue.events().makeAsyncIterator()
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let b = try queue.add(.init(url: server.url("/b.bin"), destination: .file(folder + "/b.bin")))
        let c = try queue.add(.init(url: server.url("/c.bin"), destination: .file(folder + "/c.bin")), paused: true)
        await Self.wait(for: &early) {
            if case .progress(a, let progress) = $0 { progress.completedBytes >= 128 << 10 } else { false }
        }
        var late = queue.events().makeAsyncIterator()
        var replayed: [String] = []
        for _ in 0..<4 {
            switch await late.next() {
            case .started(let id, _)?: replayed.append("started \(id)")
            case .progress(let id, let progress)?: replayed.append("progress \(id) \(progress.completedBytes >= 128 << 10)")
            case .queued(let id)?: replayed.append("queued \(id)")
            case .paused(let id)?: replayed.append("paused \(id)")
            case let other: replayed.append("\(String(describing: other))")
            }
        }
        #expect(replayed == ["started \(a)", "progress \(a) true", "queued \(b)", "paused \(c)"])
        gate.open()
        // Then every event from then on: a's end, b's start.
        await Self.wait(for: &late) { if case .finished(a, _) = $0 { true } else { false } }
        await Self.wait(for: &late) { if case .started(b, _) = $0 { true } else { false } }
        queue.cancel(c)
        try await queue.waitUntilIdle()
    }

    @Test func headersAndALoginOfARequestReachEveryConnection() async throws {
        let content = TestFiles.fastRandomBytes(1 << 20, seed: 12)
        let server = try Self.server(["/h.bin": content])
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadQueue.Configuration()
        configuration.download = .heldAtAGate
        configuration.download.minimumSplitSize = 64 << 10
        configuration.download.headers = ["X-Token": "queue's", "X-Queue": "q"]
        let queue = configuration.build()
        try queue.add(
            .init(
                url: server.url("/h.bin"), destination: .file(folder + "/h.bin"), headers: ["x-token": "mine"],
                credentials: Credentials(user: "test", password: "secret", methods: .basic)))
        _ = try await queue.waitUntilIdle().first?.result.get()
        #expect(server.requests.count > 1)
        for request in server.requests {
            #expect(request.headers["x-token"] == "mine" && request.headers["x-queue"] == "q")
            #expect(request.headers["authorization"] == "Basic dGVzdDpzZWNyZXQ=")
        }
    }

    @Test func aSecondDownloadToOneFileIsRefusedUntilTheFirstEnds() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(256 << 10, seed: 13)
        let server = try Self.server(["/a.bin": content, "/b.bin": content], holdAfter: 64 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadQueue.Configuration()
        configuration.download = .heldAtAGate
        configuration.download.overwrite = true
        let queue = configuration.build()
        try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        try queue.add(.init(url: server.url("/b.bin"), destination: .folder(folder)))
        for refused in [
            DownloadQueue.Request(url: server.url("/b.bin"), destination: .file(folder + "/./a.bin")),
            DownloadQueue.Request(url: server.url("/b.bin"), destination: .folder(folder + "/")),
        ] {
            #expect {
                try queue.add(refused)
            } throws: { ($0 as? DownloadError)?.code == .output }
        }
        #expect(queue.downloads.count == 2)
        gate.open()
        try await queue.waitUntilIdle()
        // Once the first has ended, its file may be written again.
        try queue.add(.init(url: server.url("/b.bin"), destination: .file(folder + "/a.bin")))
        #expect(try await queue.waitUntilIdle().allSatisfy { (try? $0.result.get()) != nil })
    }
}

extension DownloadQueue.Configuration {
    /// A queue with these settings.
    func build() -> DownloadQueue { DownloadQueue(configuration: self) }
}
