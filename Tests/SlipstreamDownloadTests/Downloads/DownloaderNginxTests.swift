import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Downloads from the real nginx that scripts/test.sh starts.
@Suite struct DownloaderNginxTests {
    static let sizes = [0, 1, (1 << 20) + 1, 256 << 20]

    @Test(.serialized, arguments: sizes, [1, 4, 8, 16])
    func downloadsAreExact(size: Int, connections: Int) async throws {
        let name = "exact-\(size).bin"
        let source = try await TestNginx.makeFileOffPool(name, size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        let download = try Downloader(configuration: configuration).start(try TestNginx.url(name), to: .folder(folder))
        let result = try await download.value
        #expect(result.path == folder + "/" + name)
        #expect(result.bytes == Int64(size))
        #expect(result.segmented == (size > 0))
        let exact = await TestFiles.equalOffPool(result.path, source)
        #expect(exact)
        #expect(!FileManager.default.fileExists(atPath: result.path + ".part"))
        // Nothing fetched twice when nothing failed.
        #expect(result.bytesReceived == Int64(size))
    }

    @Test(arguments: [1, 8])
    func rateLimitedConnectionsSplitTheWork(connections: Int) async throws {
        let source = try TestNginx.makeFile("limited-6m.bin", size: 6 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        configuration.minimumSplitSize = 256 << 10
        // A query of this run's own, to find its requests in nginx's log.
        let query = "rate=\(2048 / connections)k&run=\(UInt32.random(in: 0...UInt32.max))"
        let download = try Downloader(configuration: configuration)
            .start(try TestNginx.url("limited-6m.bin", location: "rate", query: query), to: .file(folder + "/out.bin"))
        var sawStart = false
        for await event in download.events {
            if case .started(let info) = event { sawStart = info.segmented && info.totalBytes == 6 << 20 }
        }
        let result = try await download.value
        #expect(sawStart)
        // One request per connection at least (more where a straggler's range was taken over):
        // one connection asks once, for everything.
        let requests = try TestNginx.requests(to: "/rate/limited-6m.bin?" + query)
        #expect(connections == 1 ? requests.count == 1 : requests.count >= connections, "\(requests)")
        #expect(requests.allSatisfy { $0.status == 206 })
        let exact = TestFiles.equal(result.path, source)
        #expect(exact)
    }

    @Test func compressedResponsesAreStoredAsSentInOneConnection() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = String(repeating: "slipstream ", count: 100_000)
        try text.write(toFile: try TestNginx.filesFolder() + "/text.txt", atomically: true, encoding: .utf8)
        var configuration = DownloadConfiguration()
        configuration.headers.add(name: "Accept-Encoding", value: "gzip")
        let download = try Downloader(configuration: configuration)
            .start(try TestNginx.url("text.txt", location: "gzip"), to: .file(folder + "/text.gz"))
        let result = try await download.value
        #expect(!result.segmented)
        let stored = try #require(FileManager.default.contents(atPath: result.path))
        #expect(stored.starts(with: [0x1F, 0x8B]))
        #expect(stored.count < text.utf8.count / 10)
    }

    @Test func redirectedDownloadKeepsTheNameOfTheTarget() async throws {
        let source = try TestNginx.makeFile("target-2m.bin", size: 2 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await Downloader().start(try TestNginx.url("target-2m.bin", location: "moved"), to: .folder(folder)).value
        #expect(result.path == folder + "/target-2m.bin")
        let exact = TestFiles.equal(result.path, source)
        #expect(exact)
    }

    @Test func notFoundIsAnHTTPErrorAndLeavesNoFile() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Downloader().start(try TestNginx.url("missing.bin"), to: .folder(folder))
        do {
            _ = try await download.value
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .httpStatus)
            #expect(error.http?.status == 404)
            #expect(error.message.contains("missing.bin"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func cancelStopsAndKeepsThePartFile() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(TestFiles.randomBytes(2 << 20, seed: 5), for: request)
            response.holdAfter = 64 << 10
            response.gate = gate
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = DownloadConfiguration.heldAtAGate
        let download = try Downloader(configuration: configuration).start(server.url("/c.bin"), to: .file(folder + "/c.bin"))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes > 0 { break }
        }
        download.cancel()
        download.cancel()
        do {
            _ = try await download.value
            Issue.record("expected cancelled")
        } catch {
            #expect(error.code == .cancelled)
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/c.bin.part"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.bin"))
    }
}

/// Serialized: two tests write to /dev/full, which a `PartFile` locks while open.
@Suite(.serialized) struct DiskWriterTests {
    /// The writer's pool at its smallest (one slot): most slices are written
    /// straight from libcurl's buffer while the writer thread is busy; the file is still exact.
    @Test func smallestWriteBufferStillGivesTheExactFile() async throws {
        let source = try await TestNginx.makeFileOffPool("backpressure-64m.bin", size: 64 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.writeBufferSize = 1
        let result = try await Downloader(configuration: configuration)
            .start(try TestNginx.url("backpressure-64m.bin"), to: .folder(folder)).value
        let exact = TestFiles.equal(result.path, source)
        #expect(exact)
        #expect(result.bytesReceived == 64 << 20)
    }

    @Test func aFailedQueuedWriteIsReportedAndStopsLaterOnes() async throws {
        let file = try PartFile(creating: "/dev/full")
        let failures = AsyncStream.makeStream(of: DownloadError.self)
        let writer = DiskWriter(
            opening: { file }, slotSize: 4096, maxSlots: 1,
            hooks: .init(onError: { failures.continuation.yield($0) }))
        let bytes = [UInt8](repeating: 7, count: 1000)
        // Queued (a slot is free), so it fails on the writer thread.
        #expect(try bytes.withUnsafeBytes { try writer.take($0, at: 0) } == .taken)
        writer.finish(keepRecord: false) { _ in failures.continuation.finish() }
        var errors: [DownloadError] = []
        for await error in failures.stream { errors.append(error) }
        #expect(errors.map(\.code) == [.noSpace])
        #expect(errors.first?.message.contains("/dev/full at byte 0") == true)
        #expect(writer.written.isEmpty)
        // Every later slice is refused with the same error.
        #expect(throws: DownloadError.self) { try bytes.withUnsafeBytes { try writer.take($0, at: 1000) } }
        file.close()
    }

    @Test func aSliceLargerThanASlotTakesSeveralOrNone() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartFile(creating: folder + "/parts")
        let gate = Gate()
        let writer = DiskWriter(
            opening: {
                gate.wait(); return file
            }, slotSize: 16, maxSlots: 8,
            hooks: .init(onError: { _ in Issue.record("no error expected") }))
        let bytes = (0..<100).map { UInt8($0) }
        // 100 bytes take 7 of the 8 slots (nearly full); another 100 find only one free:
        // refused, nothing taken.
        #expect(try bytes.withUnsafeBytes { try writer.take($0, at: 0) } == .takenNearlyFull)
        #expect(try bytes.withUnsafeBytes { try writer.take($0, at: 100) } == .refused)
        gate.open()
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        #expect(writer.written.ranges == [0..<100])
        #expect(TestFiles.contents(of: folder + "/parts", equal: bytes))
        file.close()
    }

    /// Slices are taken while slots are free; with fewer than a quarter free, each one taken
    /// says the pool is nearly full (its transfer stops reading, and what libcurl already read
    /// still finds room), and one that finds no slot is refused. The writer says when it has
    /// room again, as after a refusal.
    @Test func aNearlyFullPoolSaysSoAsItTakes() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartFile(creating: folder + "/nearly")
        let gate = Gate()
        let room = DispatchSemaphore(value: 0)
        let writer = DiskWriter(
            opening: {
                gate.wait(); return file
            }, slotSize: 16, maxSlots: 8,
            hooks: .init(onError: { _ in Issue.record("no error expected") }, onRoom: { room.signal() }))
        let bytes = [UInt8](repeating: 3, count: 16)
        // Slices 32 bytes apart: each one takes a slot of its own.
        let takings = try (0..<9).map { n in try bytes.withUnsafeBytes { try writer.take($0, at: Int64(n * 32)) } }
        #expect(takings == Array(repeating: .taken, count: 6) + [.takenNearlyFull, .takenNearlyFull, .refused])
        gate.open()
        #expect(try await offPool { room.wait(timeout: .now() + .seconds(30)) } == .success, "the writer never said it had room")
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        #expect(writer.written.byteCount == 8 * 16)
        file.close()
    }

    /// Slices that continue each other share a slot and make one write; others (another
    /// connection's) make writes of their own, in any order.
    @Test func contiguousSlicesMakeOneWrite() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartFile(creating: folder + "/joined")
        let writes = Mutex<[Range<Int64>]>([])
        let writer = DiskWriter(
            opening: { file }, slotSize: 100, maxSlots: 8,
            hooks: .init(
                onError: { _ in Issue.record("no error expected") },
                beforeWrite: { offset, count in
                    writes.withLock { $0.append(offset..<(offset + Int64(count))) }
                }))
        let bytes = (0..<250).map { UInt8($0) }
        let taken = try bytes.withUnsafeBytes { all in
            // Two connections, interleaved: 0..<100 in four slices, 100..<250 in three.
            try [(0, 30), (150, 200), (30, 60), (200, 250), (60, 100), (100, 150)].map { start, end in
                try writer.take(UnsafeRawBufferPointer(rebasing: all[start..<end]), at: Int64(start))
            }
        }
        #expect(taken.allSatisfy { $0 == .taken })
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        #expect(Set(writes.withLock { $0 }) == [0..<100, 150..<250, 100..<150])
        #expect(writer.written.ranges == [0..<250])
        #expect(TestFiles.contents(of: folder + "/joined", equal: bytes))
        file.close()
    }

    /// The network thread never writes: a full writer refuses the slice (the transfer pauses)
    /// and says when a slot is free again.
    @Test func aFullWriterRefusesAndTellsWhenItHasRoom() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartFile(creating: folder + "/slow")
        let gate = Gate()
        let rooms = AsyncStream.makeStream(of: Void.self)
        let writer = DiskWriter(
            opening: { file }, slotSize: 10, maxSlots: 2,
            hooks: .init(
                onError: { _ in Issue.record("no error expected") },
                onRoom: { rooms.continuation.yield() },
                beforeWrite: { _, _ in gate.wait() }))
        let bytes = (0..<30).map { UInt8($0) }
        let taken = try bytes.withUnsafeBytes { all in
            [
                try writer.take(UnsafeRawBufferPointer(rebasing: all[0..<10]), at: 0),
                try writer.take(UnsafeRawBufferPointer(rebasing: all[10..<20]), at: 10),
                try writer.take(UnsafeRawBufferPointer(rebasing: all[20..<30]), at: 20),
            ]
        }
        #expect(taken == [.taken, .taken, .refused])
        gate.open()
        var iterator = rooms.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(try bytes.withUnsafeBytes { try writer.take(UnsafeRawBufferPointer(rebasing: $0[20..<30]), at: 20) } == .taken)
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        #expect(writer.written.ranges == [0..<30])
        #expect(TestFiles.contents(of: folder + "/slow", equal: bytes))
        file.close()
    }

    @Test func aHoldingWriterWritesTheWholeFileOnceAtTheEnd() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/held"
        let file = try PartFile(creating: path)
        let writer = DiskWriter(holding: 100, file: file, hooks: .init(onError: { _ in Issue.record("no error expected") }))
        let bytes = (0..<100).map { UInt8($0) }
        // Out of order, as the pieces of a file fetched over two connections come.
        let taken = try bytes.withUnsafeBytes { all in
            [
                try writer.take(UnsafeRawBufferPointer(rebasing: all[60..<100]), at: 60),
                try writer.take(UnsafeRawBufferPointer(rebasing: all[0..<60]), at: 0),
            ]
        }
        #expect(taken == [.taken, .taken])
        #expect(writer.written.ranges == [0..<100])
        #expect(FileSystem.size(of: path) == 0)
        // More than the announced size is refused, and never reaches the file.
        #expect(throws: DownloadError.self) { try bytes.withUnsafeBytes { try writer.take($0, at: 50) } }
        await withCheckedContinuation { done in writer.finish(keepRecord: false) { _ in done.resume() } }
        file.close()
        #expect(TestFiles.contents(of: path, equal: bytes))
    }

    @Test func aHoldingWriterReportsAFailedWriteBeforeItFinishes() async throws {
        let file = try PartFile(creating: "/dev/full")
        let errors = Mutex<[DownloadError]>([])
        let writer = DiskWriter(holding: 1000, file: file, hooks: .init(onError: { error in errors.withLock { $0.append(error) } }))
        _ = try [UInt8](repeating: 7, count: 1000).withUnsafeBytes { try writer.take($0, at: 0) }
        let seen = await withCheckedContinuation { done in
            writer.finish(keepRecord: false) { _ in done.resume(returning: errors.withLock { $0 }) }
        }
        file.close()
        #expect(seen.map(\.code) == [.noSpace])
        #expect(seen.first?.message.contains("/dev/full at byte 0") == true)
    }
}
