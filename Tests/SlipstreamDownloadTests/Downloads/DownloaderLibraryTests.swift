import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// The library as its users meet it: one-shot downloads, Task cancellation, several readers
/// of one download's events, and a queue's wait.
@Suite struct DownloaderLibraryTests {
    static let content = TestFiles.randomBytes(2 << 20, seed: 21)

    /// A server that sends the first 256 KiB of each answer, then holds it until `gate` opens.
    static func heldServer(_ gate: Gate) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request, etag: "\"v1\"")
            response.holdAfter = 256 << 10
            response.gate = gate
            return response
        }
    }

    @Test func aOneShotDownloadTakesAURLAndReturnsTheResult() async throws {
        let server = try TestHTTPServer { .file(Self.content, for: $0) }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try #require(URL(string: server.url("/one.bin")))
        let result = try await Downloader().download(from: url, to: .folder(folder))
        #expect(result.path == folder + "/one.bin")
        #expect(TestFiles.contents(of: result.path, equal: Self.content))
    }

    /// Cancelling the task that awaits a download cancels it, keeping its files to resume.
    @Test func cancellingTheAwaitingTaskCancelsTheDownloadAndKeepsItsFiles() async throws {
        let gate = Gate()
        let server = try Self.heldServer(gate)
        defer { gate.open(); server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/held.bin"
        let download = try Downloader(configuration: .heldAtAGate).start(server.url("/held.bin"), to: .file(path))
        let waiter = Task { try await download.value }
        // Cancelled once the server holds every answer (whole pieces are on disk by then).
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes >= 256 << 10 { break }
        }
        waiter.cancel()
        let outcome = await waiter.result
        guard case .failure(let failure) = outcome, let error = failure as? DownloadError else {
            Issue.record("the download finished")
            return
        }
        #expect(error.code == .cancelled)
        #expect(error.resumableFile == path + ".part")
        #expect(FileManager.default.fileExists(atPath: path + ".part"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        // Started again, it resumes.
        gate.open()
        let result = try await Downloader(configuration: .heldAtAGate).download(from: server.url("/held.bin"), to: .file(path))
        #expect(result.resumedBytes > 0)
        #expect(TestFiles.contents(of: path, equal: Self.content))
    }

    /// Two tasks read one download's events at once: each gets every event, in order, and a
    /// third that starts after the end still gets the start and the end.
    @Test func severalReadersEachGetEveryEvent() async throws {
        let server = try TestHTTPServer { .file(Self.content, for: $0) }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let download = try Downloader().start(server.url("/many.bin"), to: .folder(folder))
        @Sendable func kinds() async -> [String] {
            var kinds: [String] = []
            for await event in download.events {
                switch event {
                case .started: kinds.append("started")
                case .finished: kinds.append("finished")
                case .failed: kinds.append("failed")
                default: break
                }
            }
            return kinds
        }
        async let first = kinds()
        async let second = kinds()
        let (a, b) = await (first, second)
        #expect(a == ["started", "finished"])
        #expect(b == ["started", "finished"])
        #expect(await kinds() == ["started", "finished"])
    }

    /// Cancelling the task that waits for a queue stops its downloads, keeping their files.
    @Test func cancellingTheWaitForAQueueStopsItsDownloads() async throws {
        let gate = Gate()
        let server = try Self.heldServer(gate)
        defer { gate.open(); server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadQueue.Configuration()
        configuration.download = .heldAtAGate
        let queue = DownloadQueue(configuration: configuration)
        let id = try queue.add(.init(url: server.url("/q.bin"), destination: .folder(folder)))
        for await event in queue.events(for: id) {
            if case .progress(_, let progress) = event, progress.completedBytes > 0 { break }
        }
        let waiter = Task { try await queue.waitUntilIdle() }
        waiter.cancel()
        let outcome = await waiter.result
        guard case .failure(let failure) = outcome, let error = failure as? DownloadError else {
            Issue.record("the wait ended without a cancel")
            return
        }
        #expect(error.code == .cancelled)
        #expect(queue.downloads.allSatisfy { $0.phase == .queued })
        #expect(FileManager.default.fileExists(atPath: folder + "/q.bin.part"))
    }
}
