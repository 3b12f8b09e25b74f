import Foundation
import SlipstreamDownload
import SlipstreamHTTP
import Testing
import TestSupport

/// What aria2's clients change and read while a queue runs: the details of a running download,
/// the concurrency, the limits, a waiting download's request. Against the in-test server, every
/// "while running" moment made by a response held at a gate.
@Suite(.timeLimit(.minutes(5))) struct DownloadQueueChangesTests {
    typealias Base = DownloadQueueTests

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    /// Waits for a progress event of `id` with at least `bytes` completed.
    static func waitForProgress(
        _ events: inout DownloadQueueEvents.AsyncIterator, of id: DownloadQueue.ID, atLeast bytes: Int64
    ) async {
        await Base.wait(for: &events) {
            if case .progress(id, let progress) = $0 { return progress.completedBytes >= bytes }
            return false
        }
    }

    /// Whether the queue is idle within `seconds` (false after it, without waiting longer).
    static func idle(_ queue: DownloadQueue, within seconds: Int) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await queue.waitUntilIdle()) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test func aRunningDownloadTellsItsPiecesAndConnectionsAndAWaitingOneNothing() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 21)
        let server = try Base.server(["/a.bin": content, "/b.bin": content], holdAfter: 256 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 4)
        var events = queue.events().makeAsyncIterator()
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let b = try queue.add(.init(url: server.url("/b.bin"), destination: .file(folder + "/b.bin")))
        // Four connections, each held after 256 KiB.
        await Self.waitForProgress(&events, of: a, atLeast: 1 << 20)
        let details = try #require(queue.details(of: a))
        #expect(details.totalBytes == 4 << 20 && details.completedBytes == 1 << 20)
        #expect(details.pieceLength == 1 << 20 && details.numPieces == 4)
        // Each connection wrote the first quarter of its range: no piece is whole.
        #expect(details.completedPieces == [0])
        #expect(details.connections.count == 4)
        #expect(details.connections.allSatisfy { $0.url == server.url("/a.bin") && $0.range != nil })
        #expect(details.connections.map(\.received).reduce(0, +) == 1 << 20)
        #expect(Set(details.connections.compactMap(\.range?.upperBound)).count == 4)
        #expect(queue.details(of: b) == nil)
        gate.open()
        try await queue.waitUntilIdle()
        #expect(queue.details(of: a) == nil)
    }

    /// aria2 tells a paused download's completed bytes and pieces, and a cancelled one's file
    /// to resume from is named, as for a running one.
    @Test func aPausedDownloadKeepsWhereItStoppedAndItsCancelNamesItsPartFile() async throws {
        let gate = Gate()
        defer { gate.open() }
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 26)
        let server = try Base.server(["/p.bin": content, "/q.bin": content], holdAfter: 256 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 4)
        var events = queue.events().makeAsyncIterator()
        let p = try queue.add(.init(url: server.url("/p.bin"), destination: .file(folder + "/p.bin")))
        let q = try queue.add(.init(url: server.url("/q.bin"), destination: .file(folder + "/q.bin")), paused: true)
        await Self.waitForProgress(&events, of: p, atLeast: 1 << 20)
        queue.pause(p)
        await Base.wait(for: &events) { if case .paused(p) = $0 { true } else { false } }
        let status = try #require(queue.downloads.first { $0.id == p })
        #expect(status.progress == DownloadProgress(completedBytes: 1 << 20, totalBytes: 4 << 20, bytesPerSecond: 0, activeConnections: 0))
        let details = try #require(queue.details(of: p))
        #expect(details.completedBytes == 1 << 20 && details.numPieces == 4 && details.connections.isEmpty)
        #expect(queue.downloads.first { $0.id == q }?.progress == nil && queue.details(of: q) == nil)
        queue.cancel(p)
        queue.cancel(q)
        var errors: [DownloadQueue.ID: DownloadError] = [:]
        while errors.count < 2, let event = await events.next() {
            if case .failed(let id, let error) = event { errors[id] = error }
        }
        #expect(errors[p]?.code == .cancelled && errors[p]?.resumableFile == folder + "/p.bin.part")
        #expect(errors[q]?.code == .cancelled && errors[q]?.resumableFile == nil)
        #expect(queue.removeOutcome(of: p)?.id == p)
        #expect(queue.removeOutcome(of: p) == nil)
        #expect(queue.outcomes.map(\.id) == [q])
    }

    /// A download added again (as from a session) after an earlier run paused it tells what its
    /// `.part` file holds while it waits.
    @Test func aDownloadAddedAgainTellsWhatItsPartFileHolds() async throws {
        let gate = Gate()
        defer { gate.open() }
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 27)
        let server = try Base.server(["/k.bin": content], holdAfter: 256 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let request = DownloadQueue.Request(url: server.url("/k.bin"), destination: .file(folder + "/k.bin"))
        let first = Base.queue(jobs: 1, connections: 4)
        var events = first.events().makeAsyncIterator()
        let id = try first.add(request)
        await Self.waitForProgress(&events, of: id, atLeast: 1 << 20)
        await first.stopAll()
        let kept = try #require(first.details(of: id))
        #expect(kept.completedBytes == 1 << 20)
        let second = Base.queue(jobs: 1, connections: 4)
        let again = try second.add(request, paused: true)
        let deadline = ContinuousClock.now + .seconds(30)
        while second.details(of: again) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // The record counts whole pieces of its own (64 KiB or more): at most what was written.
        let read = try #require(second.details(of: again))
        #expect(read.totalBytes == 4 << 20 && read.numPieces == 4 && read.connections.isEmpty)
        #expect(read.completedBytes > 0 && read.completedBytes <= kept.completedBytes)
        #expect(second.downloads.first?.progress?.completedBytes == read.completedBytes)
        #expect(second.downloads.first?.progress?.totalBytes == 4 << 20)
    }

    @Test func moreConcurrentDownloadsStartWaitingOnesAtOnceAndFewerStartNothingNew() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(256 << 10, seed: 22)
        let names = ["a", "b", "c", "d"]
        let server = try Base.server(
            Dictionary(uniqueKeysWithValues: names.map { ("/\($0).bin", content) }), holdAfter: 64 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 1)
        var events = queue.events().makeAsyncIterator()
        var ids: [DownloadQueue.ID] = []
        for name in names.prefix(3) {
            ids.append(try queue.add(.init(url: server.url("/\(name).bin"), destination: .file(folder + "/\(name).bin"))))
        }
        await Base.wait(for: &events) { if case .started(ids[0], _) = $0 { true } else { false } }
        #expect(queue.maxConcurrentDownloads == 1)
        queue.setMaxConcurrentDownloads(3)
        #expect(queue.maxConcurrentDownloads == 3)
        var started: Set<DownloadQueue.ID> = []
        await Base.wait(for: &events) {
            if case .started(let id, _) = $0 { started.insert(id) }
            return started == [ids[1], ids[2]]
        }
        // Fewer: the three carry on, a fourth waits (nothing can end while the gate is closed).
        queue.setMaxConcurrentDownloads(1)
        let d = try queue.add(.init(url: server.url("/d.bin"), destination: .file(folder + "/d.bin")))
        #expect(queue.downloads.map(\.phase) == [.running, .running, .running, .queued])
        #expect(queue.details(of: d) == nil)
        gate.open()
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.count == 4 && outcomes.allSatisfy { (try? $0.result.get()) != nil })
    }

    @Test func aWaitingDownloadIsChangedAndARunningOneIsNot() async throws {
        let gate = Gate()
        let content = TestFiles.fastRandomBytes(1 << 20, seed: 23)
        let server = try Base.server(["/a.bin": content, "/b.bin": content], holdAfter: 64 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 4)
        var events = queue.events().makeAsyncIterator()
        let a = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/a.bin")))
        let b = try queue.add(.init(url: server.url("/missing.bin"), destination: .file(folder + "/x.bin")), paused: true)
        await Base.wait(for: &events) { if case .started(a, _) = $0 { true } else { false } }
        let gone = try queue.add(.init(url: server.url("/b.bin"), destination: .file(folder + "/gone.bin")), paused: true)
        queue.cancel(gone)
        let refusals: [(DownloadQueue.ID, (inout DownloadQueue.Request) -> Void, DownloadError.Code)] = [
            (a, { $0.connections = 1 }, .running),
            (gone, { $0.connections = 1 }, .unknownDownload),
            (b, { $0.mirrors = ["gopher://h/b.bin"] }, .invalidURL),
            (b, { $0.destination = .file(folder + "/./a.bin") }, .output),
        ]
        for (id, change, code) in refusals {
            do {
                try queue.update(id, change)
                Issue.record("a change to \(id) was not refused (\(code))")
            } catch {
                #expect(error.code == code)
            }
        }
        #expect(queue.downloads.last?.request.url == server.url("/missing.bin"))
        try queue.update(b) { request in
            request.url = server.url("/b.bin")
            request.destination = .file(folder + "/b.bin")
            request.connections = 1
            request.userAgent = "Changed/1"
        }
        #expect(queue.downloads.last?.request.connections == 1)
        // Its old file is free for another download.
        let c = try queue.add(.init(url: server.url("/a.bin"), destination: .file(folder + "/x.bin")), paused: true)
        queue.cancel(c)
        queue.resume(b)
        gate.open()
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.allSatisfy { $0.id == c || $0.id == gone || (try? $0.result.get()) != nil })
        let requests = server.requests.filter { $0.path == "/b.bin" }
        #expect(requests.count == 1)
        #expect(requests.allSatisfy { $0.headers["user-agent"] == "Changed/1" })
        #expect(TestFiles.contents(of: folder + "/b.bin", equal: content))
    }

    /// aria2 restarts an active download to change its options: it stops keeping its file,
    /// waits again in its place, and resumes with the new request.
    @Test func aRunningDownloadIsRestartedWithItsNewRequest() async throws {
        let gate = Gate()
        defer { gate.open() }
        // 4 MiB: each run the restart misses is longer than a response's bytes before the gate
        // (with 2 MiB, each is 256 KiB, and the restarted download ends before it is looked at).
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 28)
        let server = try Base.server(["/r.bin": content, "/w.bin": content], holdAfter: 256 << 10, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 4)
        var events = queue.events().makeAsyncIterator()
        let id = try queue.add(.init(url: server.url("/r.bin"), destination: .file(folder + "/r.bin")))
        let waiting = try queue.add(.init(url: server.url("/w.bin"), destination: .file(folder + "/w.bin")))
        await Self.waitForProgress(&events, of: id, atLeast: 1 << 20)
        let before = server.requests.count
        try queue.update(id, restarting: true) { request in
            request.connections = 1
            request.userAgent = "Restarted/1"
        }
        await Base.wait(for: &events) { if case .queued(id) = $0 { true } else { false } }
        var info: DownloadInfo?
        await Base.wait(for: &events) {
            if case .started(id, let started) = $0 { info = started }
            return info != nil
        }
        // It went first again (the other one waits), and resumed what it had.
        #expect(info?.resumedBytes ?? 0 > 0)
        #expect(queue.downloads.map(\.id) == [id, waiting] && queue.downloads.map(\.phase) == [.running, .queued])
        #expect(queue.downloads.first?.request.userAgent == "Restarted/1", "\(queue.downloads.map { ($0.id, $0.phase, $0.request) })")
        gate.open()
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.count == 2 && outcomes.allSatisfy { (try? $0.result.get()) != nil })
        let after = server.requests[before...].filter { $0.path == "/r.bin" }
        // One connection, a request for each run it misses, every one with the new request's settings.
        #expect(!after.isEmpty && after.allSatisfy { $0.headers["user-agent"] == "Restarted/1" })
        #expect(TestFiles.contents(of: folder + "/r.bin", equal: content))
    }

    /// A limit set while the download is held at the gate holds every byte after it: at most
    /// the bucket (50 ms of the rate) and one slice (libcurl's 128 KiB) pass sooner.
    @Test(arguments: [false, true])
    func aLimitSetWhileRunningHoldsTheRestOfTheDownload(ownLimit: Bool) async throws {
        let gate = Gate()
        let size = 2 << 20
        let held = 256 << 10
        let content = TestFiles.fastRandomBytes(size, seed: 24)
        let server = try Base.server(["/l.bin": content], holdAfter: held, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let queue = Base.queue(jobs: 1, connections: 1)
        var events = queue.events().makeAsyncIterator()
        let id = try queue.add(.init(url: server.url("/l.bin"), destination: .file(folder + "/l.bin")))
        await Self.waitForProgress(&events, of: id, atLeast: Int64(held))
        let rate: Int64 = 1 << 20
        if ownLimit {
            queue.setBytesPerSecondLimit(rate, of: id)
            #expect(queue.downloads.first?.request.bytesPerSecondLimit == rate)
        } else {
            queue.setBytesPerSecondLimit(rate)
            #expect(queue.bytesPerSecondLimit == rate)
        }
        let start = ContinuousClock.now
        gate.open()
        try await queue.waitUntilIdle()
        let floor = (Double(size - held - (128 << 10)) - Double(rate) * 0.05) / Double(rate)
        #expect(Self.seconds(since: start) >= floor)
        #expect(TestFiles.contents(of: folder + "/l.bin", equal: content))
    }

    /// A limit lifted while the download crawls under it: it finishes at once, where the old
    /// limit would take four minutes.
    @Test(arguments: [false, true])
    func aLimitLiftedWhileRunningLetsTheDownloadGo(ownLimit: Bool) async throws {
        let content = TestFiles.fastRandomBytes(4 << 20, seed: 25)
        let server = try Base.server(["/s.bin": content])
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadQueue.Configuration()
        configuration.download = .heldAtAGate
        configuration.download.connections = 2
        configuration.download.minimumSplitSize = 64 << 10
        let slow: Int64 = 16 << 10
        if !ownLimit { configuration.bytesPerSecondLimit = slow }
        let queue = configuration.build()
        var events = queue.events().makeAsyncIterator()
        let id = try queue.add(
            .init(
                url: server.url("/s.bin"), destination: .file(folder + "/s.bin"), bytesPerSecondLimit: ownLimit ? slow : nil))
        await Base.wait(for: &events) { if case .started(id, _) = $0 { true } else { false } }
        if ownLimit { queue.setBytesPerSecondLimit(nil, of: id) } else { queue.setBytesPerSecondLimit(nil) }
        #expect(await Self.idle(queue, within: 60), "the download did not finish within a minute of the limit's end")
        #expect(TestFiles.contents(of: folder + "/s.bin", equal: content))
    }
}
