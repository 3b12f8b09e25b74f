import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Stop, resume, a remote file that changes in between, damaged records, retries.
///
/// nginx's `limit_rate` lets each connection send one second's worth at once, so throttled
/// downloads here use rates low enough that no busy machine can finish them before the
/// interruption.
@Suite struct DownloaderResumeTests {
    /// Starts a download and cancels it once `bytes` are done; returns what the events said.
    func interrupt(_ url: String, to path: String, after bytes: Int64, configuration: DownloadConfiguration = .init())
        async throws -> DownloadError? {
        let download = try Downloader(configuration: configuration).start(url, to: .file(path))
        for await event in download.events {
            if case .progress(let progress) = event, progress.completedBytes >= bytes { break }
        }
        download.cancel()
        do {
            _ = try await download.value
            return nil
        } catch {
            return error
        }
    }

    /// Runs a download to its end, collecting its notices.
    func finish(_ url: String, to path: String, configuration: DownloadConfiguration = .init())
        async throws -> (Result<DownloadResult, DownloadError>, [String]) {
        let download = try Downloader(configuration: configuration).start(url, to: .file(path))
        var notices: [String] = []
        for await event in download.events {
            if case .notice(let text) = event { notices.append(text) }
        }
        do {
            return (.success(try await download.value), notices)
        } catch {
            return (.failure(error), notices)
        }
    }

    @Test func cancelThenResumeFetchesOnlyWhatIsMissing() async throws {
        let source = try TestNginx.makeFile("resume-8m.bin", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/r.bin"
        let stopped = try await interrupt(try TestNginx.url("resume-8m.bin", location: "rate", query: "rate=32k"),
                                          to: path, after: 1 << 20)
        #expect(stopped?.code == .cancelled)
        #expect(stopped?.message.contains("run it again to resume") == true)
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        let (result, notices) = try await finish(try TestNginx.url("resume-8m.bin"), to: path)
        let done = try result.get()
        #expect(notices.isEmpty)
        // All but the partly written pieces of the (at most 8) connections are kept.
        #expect(done.resumedBytes >= 1 << 20 - 8 * (64 << 10))
        #expect(done.bytesReceived == Int64(8 << 20) - done.resumedBytes)
        let exact = TestFiles.equal(path, source)
        #expect(exact)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["r.bin"])
    }

    @Test func aChangedRemoteFileStartsOverAndIsNeverMixed() async throws {
        let name = "changing-6m.bin"
        let served = try TestNginx.filesFolder() + "/" + name
        try TestFiles.writeRandom(to: served, size: 6 << 20, seed: 1)
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/c.bin"
        _ = try await interrupt(try TestNginx.url(name, location: "rate", query: "rate=16k"), to: path, after: 256 << 10)
        // Same size, new bytes and a new modification time, so a new ETag.
        try TestFiles.writeRandom(to: served, size: 6 << 20, seed: 2)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: served)
        let (result, notices) = try await finish(try TestNginx.url(name), to: path)
        let done = try result.get()
        #expect(notices.count == 1 && notices[0].contains("starting over"), "\(notices)")
        #expect(done.resumedBytes == 0)
        let exact = TestFiles.equal(path, served)
        #expect(exact)
    }

    /// A server with Last-Modified but no ETag; then one with neither.
    @Test(arguments: [true, false])
    func validatorsDecideWhetherToResume(hasLastModified: Bool) async throws {
        let version = Mutex(1)
        let first = TestFiles.randomBytes(2 << 20, seed: 10)
        let second = TestFiles.randomBytes(2 << 20, seed: 11)
        let server = try TestHTTPServer { request in
            let current = version.withLock { $0 }
            var response = TestHTTPServer.Response.file(
                current == 1 ? first : second, for: request, etag: nil,
                lastModified: hasLastModified ? "Sun, 29 Nov 2026 1\(current):00:00 GMT" : nil)
            // Slow until the interruption (a busy machine must not finish first), then fast.
            response.bytesPerSecond = current == 1 ? 16 << 10 : nil
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/v.bin"
        _ = try await interrupt(server.url("/v.bin"), to: path, after: 128 << 10)
        version.withLock { $0 = 2 }
        let (result, notices) = try await finish(server.url("/v.bin"), to: path)
        _ = try result.get()
        #expect(notices.count == 1)
        #expect(notices.first?.contains(hasLastModified ? "changed" : "no ETag or Last-Modified") == true, "\(notices)")
        let exact = TestFiles.contents(of: path, equal: second)
        #expect(exact)
    }

    @Test func trustSizeResumesWithoutValidators() async throws {
        let content = TestFiles.randomBytes(2 << 20, seed: 12)
        let slow = Mutex(true)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request, etag: nil)
            response.bytesPerSecond = slow.withLock { $0 } ? 16 << 10 : nil
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/t.bin"
        var configuration = DownloadConfiguration()
        configuration.trustSize = true
        _ = try await interrupt(server.url("/t.bin"), to: path, after: 256 << 10, configuration: configuration)
        slow.withLock { $0 = false }
        let (result, notices) = try await finish(server.url("/t.bin"), to: path, configuration: configuration)
        let done = try result.get()
        #expect(notices.isEmpty)
        #expect(done.resumedBytes > 0)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
    }

    @Test func aDamagedRecordIsNeverTrusted() async throws {
        let source = try TestNginx.makeFile("damaged-4m.bin", size: 4 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/d.bin"
        _ = try await interrupt(try TestNginx.url("damaged-4m.bin", location: "rate", query: "rate=16k"), to: path, after: 256 << 10)
        let record = path + ".part.slipstream"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: record)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: record))
        try? FileManager.default.removeItem(atPath: record + ".live")
        let (result, notices) = try await finish(try TestNginx.url("damaged-4m.bin"), to: path)
        let done = try result.get()
        #expect(notices.count == 1 && notices[0].contains("damaged"), "\(notices)")
        #expect(done.resumedBytes == 0)
        let exact = TestFiles.equal(path, source)
        #expect(exact)
    }

    @Test func cancelAndRemoveFilesLeavesNothing() async throws {
        try TestNginx.makeFile("remove-4m.bin", size: 4 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        let download = try Downloader().start(
            try TestNginx.url("remove-4m.bin", location: "rate", query: "rate=16k"), to: .file(folder + "/x.bin"))
        for await event in download.events {
            if case .progress = event { break }
        }
        download.cancelAndRemoveFiles()
        download.cancelAndRemoveFiles()
        await #expect(throws: DownloadError.self) { try await download.value }
        download.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func cancelAfterTheEndChangesNothing() async throws {
        let source = try TestNginx.makeFile("done-1m.bin", size: 1 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        let download = try Downloader().start(try TestNginx.url("done-1m.bin"), to: .file(folder + "/y.bin"))
        _ = try await download.value
        download.cancel()
        download.cancelAndRemoveFiles()
        let exact = TestFiles.equal(folder + "/y.bin", source)
        #expect(exact)
        #expect(try await download.value.bytes == 1 << 20)
    }

    @Test func serviceUnavailableWithRetryAfterIsWaitedFor() async throws {
        let content = TestFiles.randomBytes(1 << 20, seed: 13)
        let count = Mutex(0)
        let server = try TestHTTPServer { request in
            if count.withLock({ $0 += 1; return $0 }) <= 2 {
                return .init(status: 503, headers: [("Retry-After", "1")])
            }
            return .file(content, for: request)
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let started = ContinuousClock.now
        let download = try Downloader().start(server.url("/busy.bin"), to: .file(folder + "/b.bin"))
        var delays: [Double] = []
        for await event in download.events {
            if case .retrying(_, _, let delay) = event { delays.append(delay) }
        }
        _ = try await download.value
        #expect(delays.count == 2 && delays.allSatisfy { $0 >= 1 })
        #expect(ContinuousClock.now - started >= .seconds(2))
        let exact = TestFiles.contents(of: folder + "/b.bin", equal: content)
        #expect(exact)
    }

    @Test func aClientErrorIsNeverRetried() async throws {
        let server = try TestHTTPServer { _ in .init(status: 403) }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let download = try Downloader().start(server.url("/forbidden.bin"), to: .file(folder + "/f.bin"))
        await #expect(throws: DownloadError.self) { try await download.value }
        #expect(server.requests.count == 1)
    }

    @Test func aServerThatDropsEveryConnectionAfterAWhileStillGivesTheExactFile() async throws {
        let content = TestFiles.randomBytes(6 << 20, seed: 14)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            response.closeAfter = 700_000
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.retryDelay = 0.01
        let result = try await Downloader(configuration: configuration)
            .start(server.url("/drops.bin"), to: .file(folder + "/d.bin")).value
        #expect(result.bytes == 6 << 20)
        let exact = TestFiles.contents(of: folder + "/d.bin", equal: content)
        #expect(exact)
    }

    @Test func aStragglerIsReplacedByAFasterConnection() async throws {
        let content = TestFiles.randomBytes(4 << 20, seed: 15)
        let count = Mutex(0)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            // The second request crawls at 16 KiB/s; the others at 2 MiB/s.
            response.bytesPerSecond = count.withLock({ $0 += 1; return $0 }) == 2 ? 16 << 10 : 2 << 20
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 4 << 20  // no stealing: only the watchdog can help
        let started = ContinuousClock.now
        let result = try await Downloader(configuration: configuration)
            .start(server.url("/straggle.bin"), to: .file(folder + "/s.bin")).value
        // The crawling range alone (a quarter of the file at 16 KiB/s) would take a minute.
        #expect(ContinuousClock.now - started < .seconds(40))
        let exact = TestFiles.contents(of: folder + "/s.bin", equal: content)
        #expect(exact)
        #expect(result.bytesReceived >= 4 << 20)
    }
}
