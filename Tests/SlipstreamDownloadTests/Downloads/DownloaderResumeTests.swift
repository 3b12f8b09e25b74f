import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Stop, resume, a remote file that changes in between, damaged records, retries.
///
/// Interrupted downloads come from servers that hold every response at a gate after 256 KiB,
/// so each download is stopped at a known point, however busy the machine is.
@Suite struct DownloaderResumeTests {
    /// A server of `content` whose responses wait at `gate` after 256 KiB; `version` picks the
    /// content and validators (`etag` "vN", or Last-Modified only, or none).
    static func heldServer(
        _ contents: [[UInt8]], version: @escaping @Sendable () -> Int = { 1 },
        validators: Validators = .etag, gate: Gate
    ) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            let current = version()
            let content = contents[current - 1]
            var response = TestHTTPServer.Response.file(
                content, for: request,
                etag: validators == .etag ? "\"v\(current)\"" : nil,
                lastModified: validators == .lastModified ? "Sun, 29 Nov 2026 1\(current):00:00 GMT" : nil)
            response.holdAfter = 256 << 10
            response.gate = gate
            return response
        }
    }

    enum Validators: Sendable { case etag, lastModified, neither }

    /// Starts a download and cancels it once `bytes` are done; returns how it ended.
    func interrupt(_ url: String, to path: String, after bytes: Int64, configuration: DownloadConfiguration = .heldAtAGate)
        async throws -> DownloadError?
    {
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
        async throws -> (Result<DownloadResult, DownloadError>, [String])
    {
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

    /// Cancel-and-remove of a download that found records to resume, before its first answer
    /// (nothing is reopened yet): its `.part` and records go all the same.
    @Test func cancelAndRemoveBeforeAResumesFirstAnswerLeavesNothing() async throws {
        let content = TestFiles.randomBytes(8 << 20, seed: 16)
        let gate = Gate()
        let held = try Self.heldServer([content], gate: gate)
        defer { held.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/c.bin"
        _ = try await interrupt(held.url("/c.bin"), to: path, after: 256 << 10)
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        // A server that does not answer until the test is done.
        let asked = Mutex(false)
        let silent = Gate()
        let mute = try TestHTTPServer { request in
            asked.withLock { $0 = true }
            while silent.isClosed { usleep(5_000) }
            return .file(content, for: request)
        }
        defer {
            silent.open()
            mute.stop()
            gate.open()
        }
        let download = try Downloader(configuration: .heldAtAGate).start(mute.url("/c.bin"), to: .file(path))
        while !asked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        download.cancelAndRemoveFiles()
        await #expect(throws: DownloadError.self) { try await download.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func cancelThenResumeFetchesOnlyWhatIsMissing() async throws {
        let content = TestFiles.randomBytes(8 << 20, seed: 9)
        let gate = Gate()
        let held = try Self.heldServer([content], gate: gate)
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/r.bin"
        let stopped = try await interrupt(held.url("/r.bin"), to: path, after: 1 << 20)
        held.stop()
        #expect(stopped?.code == .cancelled)
        #expect(stopped?.resumableFile == path + ".part")
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        // Another server (another URL) of the same file: the ETag proves it.
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let (result, notices) = try await finish(server.url("/r.bin"), to: path)
        let done = try result.get()
        #expect(notices.isEmpty)
        // All but the partly written pieces of the (at most 8) connections are kept.
        #expect(done.resumedBytes >= 1 << 20 - 8 * (64 << 10))
        #expect(done.bytesReceived == Int64(8 << 20) - done.resumedBytes)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["r.bin"])
    }

    @Test func aChangedRemoteFileStartsOverAndIsNeverMixed() async throws {
        let old = TestFiles.randomBytes(4 << 20, seed: 1)
        let new = TestFiles.randomBytes(4 << 20, seed: 2)
        let version = Mutex(1)
        let gate = Gate()
        let server = try Self.heldServer([old, new], version: { version.withLock { $0 } }, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/c.bin"
        _ = try await interrupt(server.url("/c.bin"), to: path, after: 512 << 10)
        // Same size, new bytes, new ETag.
        version.withLock { $0 = 2 }
        gate.open()
        let (result, notices) = try await finish(server.url("/c.bin"), to: path)
        let done = try result.get()
        #expect(notices.count == 1 && notices[0].contains("starting over"), "\(notices)")
        #expect(done.resumedBytes == 0)
        let exact = TestFiles.contents(of: path, equal: new)
        #expect(exact)
    }

    /// Records left beside no `.part` (deleted by hand) describe nothing: the next run starts
    /// over without reading them, and removes them when it names its own `.part`, so they are
    /// never taken for it.
    @Test func recordsWithoutTheirPartFileAreNeverTrusted() async throws {
        let content = TestFiles.randomBytes(4 << 20, seed: 5)
        let gate = Gate()
        let server = try Self.heldServer([content], gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/o.bin"
        _ = try await interrupt(server.url("/o.bin"), to: path, after: 512 << 10)
        let store = ResumeStore(partPath: path + ".part")
        let old = store.load()
        guard case .record(let record) = old, !record.writtenRanges.isEmpty else {
            Issue.record("expected records of written pieces, found \(old)")
            return
        }
        try FileManager.default.removeItem(atPath: store.partPath)
        gate.open()
        let done = try await Downloader().start(server.url("/o.bin"), to: .file(path)).value
        #expect(done.resumedBytes == 0)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["o.bin"])
    }

    /// A server with Last-Modified but no ETag; then one with neither.
    @Test(arguments: [Validators.lastModified, .neither])
    func validatorsDecideWhetherToResume(validators: Validators) async throws {
        let version = Mutex(1)
        let first = TestFiles.randomBytes(2 << 20, seed: 10)
        let second = TestFiles.randomBytes(2 << 20, seed: 11)
        let gate = Gate()
        let server = try Self.heldServer(
            [first, second], version: { version.withLock { $0 } }, validators: validators,
            gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/v.bin"
        _ = try await interrupt(server.url("/v.bin"), to: path, after: 512 << 10)
        version.withLock { $0 = 2 }
        gate.open()
        let (result, notices) = try await finish(server.url("/v.bin"), to: path)
        _ = try result.get()
        #expect(notices.count == 1)
        #expect(
            notices.first?.contains(validators == .lastModified ? "changed" : "no ETag or Last-Modified") == true,
            "\(notices)")
        let exact = TestFiles.contents(of: path, equal: second)
        #expect(exact)
    }

    @Test func trustSizeResumesWithoutValidators() async throws {
        let content = TestFiles.randomBytes(2 << 20, seed: 12)
        let gate = Gate()
        let server = try Self.heldServer([content], validators: .neither, gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/t.bin"
        var configuration = DownloadConfiguration.heldAtAGate
        configuration.trustSize = true
        _ = try await interrupt(server.url("/t.bin"), to: path, after: 512 << 10, configuration: configuration)
        gate.open()
        let (result, notices) = try await finish(server.url("/t.bin"), to: path, configuration: configuration)
        let done = try result.get()
        #expect(notices.isEmpty)
        #expect(done.resumedBytes > 0)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
    }

    @Test func aDamagedRecordIsNeverTrusted() async throws {
        let content = TestFiles.randomBytes(4 << 20, seed: 16)
        let gate = Gate()
        let server = try Self.heldServer([content], gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let path = folder + "/d.bin"
        _ = try await interrupt(server.url("/d.bin"), to: path, after: 512 << 10)
        let record = path + ".part.slipstream"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: record)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: record))
        try? FileManager.default.removeItem(atPath: record + ".live")
        gate.open()
        let (result, notices) = try await finish(server.url("/d.bin"), to: path)
        let done = try result.get()
        #expect(notices.count == 1 && notices[0].contains("damaged"), "\(notices)")
        #expect(done.resumedBytes == 0)
        let exact = TestFiles.contents(of: path, equal: content)
        #expect(exact)
    }

    @Test func cancelAndRemoveFilesLeavesNothing() async throws {
        let gate = Gate()
        let server = try Self.heldServer([TestFiles.randomBytes(4 << 20, seed: 17)], gate: gate)
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let download = try Downloader(configuration: .heldAtAGate).start(server.url("/x.bin"), to: .file(folder + "/x.bin"))
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
            if count.withLock({
                $0 += 1; return $0
            }) <= 2 {
                return .init(status: 503, headers: [("Retry-After", "1")])
            }
            return .file(content, for: request)
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        let started = ContinuousClock.now
        let download = try Downloader().start(server.url("/busy.bin"), to: .file(folder + "/b.bin"))
        var delays: [Duration] = []
        for await event in download.events {
            if case .retrying(_, _, let delay) = event { delays.append(delay) }
        }
        _ = try await download.value
        #expect(delays.count == 2 && delays.allSatisfy { $0 >= .seconds(1) })
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
        configuration.retryDelay = .milliseconds(10)
        let result = try await Downloader(configuration: configuration)
            .start(server.url("/drops.bin"), to: .file(folder + "/d.bin")).value
        #expect(result.bytes == 6 << 20)
        let exact = TestFiles.contents(of: folder + "/d.bin", equal: content)
        #expect(exact)
    }

    @Test func aStragglerIsReplacedByAFasterConnection() async throws {
        let content = TestFiles.randomBytes(4 << 20, seed: 15)
        let count = Mutex(0)
        let crawling = Mutex<(start: Int64, end: Int64?)?>(nil)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            // The second request crawls at 16 KiB/s; the others at 2 MiB/s.
            let isSecond = count.withLock {
                $0 += 1; return $0 == 2
            }
            if isSecond { crawling.withLock { $0 = request.range } }
            response.bytesPerSecond = isSecond ? 16 << 10 : 2 << 20
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        // Four ranges of 1 MiB, none worth splitting: only the watchdog (and its end game) can help.
        configuration.minimumSplitSize = 1 << 20
        let result = try await Downloader(configuration: configuration)
            .start(server.url("/straggle.bin"), to: .file(folder + "/s.bin")).value
        let exact = TestFiles.contents(of: folder + "/s.bin", equal: content)
        #expect(exact)
        #expect(result.bytesReceived >= 4 << 20)
        // The crawling range (a quarter of the file at 16 KiB/s would take a minute) was asked
        // for again, from inside it, by another connection: the straggler was replaced.
        let ranges = server.requests.compactMap(\.range)
        let slow = try #require(crawling.withLock { $0 }, "\(ranges)")
        let end = slow.end.map { $0 + 1 } ?? Int64(content.count)
        #expect(ranges.contains { $0.start > slow.start && $0.start < end }, "\(ranges), slow \(slow)")
    }
}
