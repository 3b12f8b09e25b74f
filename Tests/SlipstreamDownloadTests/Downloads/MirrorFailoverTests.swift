import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// A download whose URL is dead (nothing listens on port 1 of loopback) comes whole from its
/// mirror on the real nginx, without a retry's wait; with every source dead it fails once,
/// naming them.
@Suite(.timeLimit(.minutes(2))) struct MirrorFailoverTests {
    static let dead = "http://127.0.0.1:1/x"

    /// The download's events, gathered while it runs, and its outcome.
    static func run(_ url: String, _ configuration: DownloadConfiguration, to path: String) async throws
        -> (result: Result<DownloadResult, DownloadError>, events: [DownloadEvent])
    {
        let download = try Downloader(configuration: configuration).start(url, to: .file(path))
        var events: [DownloadEvent] = []
        for await event in download.events {
            if case .progress = event { continue }
            events.append(event)
        }
        do throws(DownloadError) {
            return (.success(try await download.value), events)
        } catch {
            return (.failure(error), events)
        }
    }

    @Test func aDeadURLFallsOverToTheMirrorAtOnce() async throws {
        let size = 6 << 20
        let source = try TestNginx.makeFile("failover-6m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.mirrors = [try TestNginx.url("failover-6m.bin")]
        configuration.minimumSplitSize = 256 << 10
        let (outcome, events) = try await Self.run(Self.dead, configuration, to: folder + "/out.bin")
        let result = try outcome.get()
        #expect(TestFiles.equal(result.path, source))
        #expect(result.segmented)
        #expect(result.bytesReceived == Int64(size))
        #expect(!events.contains { if case .retrying = $0 { true } else { false } }, "\(events)")
        let notices = events.compactMap { if case .notice(let text) = $0 { text } else { nil } }
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix(Self.dead + ": ") == true, "\(notices)")
        #expect(notices.first?.hasSuffix("; trying \(configuration.mirrors[0]) instead") == true, "\(notices)")
    }

    /// Through a queue, into a folder: the file is named by the download's URL, as it would
    /// have been had that URL answered; a mirror without the file (404) is passed over too.
    @Test func aQueuedDownloadFallsOverPastAMissingMirror() async throws {
        let size = 2 << 20
        let source = try TestNginx.makeFile("failover-queue-2m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = DownloadQueue(configuration: DownloadQueue.Configuration())
        let id = try queue.add(
            .init(
                url: Self.dead + "/failover.bin",
                mirrors: [try TestNginx.url("failover-missing.bin"), try TestNginx.url("failover-queue-2m.bin")],
                destination: .folder(folder)))
        let outcomes = try await queue.waitUntilIdle()
        #expect(outcomes.count == 1 && outcomes.first?.id == id)
        let result = try #require(outcomes.first).result.get()
        #expect(result.path == folder + "/failover.bin")
        #expect(TestFiles.equal(result.path, source))
    }

    /// Every source dead: each is asked once a round, the retries wait between rounds only, and
    /// the error names the URL's failure, then the mirror's.
    @Test func everySourceDeadFailsOnceNamingThem() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        let missing = try TestNginx.url("failover-missing.bin")
        configuration.mirrors = [missing]
        configuration.retries = 1
        configuration.retryDelay = .milliseconds(10)
        let (outcome, events) = try await Self.run(Self.dead, configuration, to: folder + "/out.bin")
        guard case .failure(let error) = outcome else {
            Issue.record("it did not fail")
            return
        }
        #expect(error.url == Self.dead)
        #expect(error.message.hasPrefix(Self.dead + ": "), "\(error.message)")
        #expect(error.message.contains("; its mirror failed too: \(missing): the server answered HTTP 404"), "\(error.message)")
        #expect(error.message.hasSuffix("(gave up after 1 retries)"), "\(error.message)")
        #expect(events.filter { if case .retrying = $0 { true } else { false } }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.bin"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.bin.part"))
    }

    /// A mirror that answers its head and then sends nothing (an in-test server) among a live
    /// URL on nginx: the end does not wait for the stall timeout (set far beyond the suite's time
    /// limit here): once nothing else is left, its range goes to the live source.
    @Test func aSilentMirrorDoesNotHoldUpTheEnd() async throws {
        let size = 4 << 20
        let source = try TestNginx.makeFile("failover-silent-4m.bin", size: size)
        let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let silent = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request, etag: nil)
            response.stallAfter = 0
            return response
        }
        defer { silent.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = DownloadConfiguration()
        configuration.mirrors = [silent.url("/silent.bin")]
        configuration.minimumSplitSize = 256 << 10
        configuration.stallTimeout = .seconds(600)
        let (outcome, events) = try await Self.run(try TestNginx.url("failover-silent-4m.bin"), configuration, to: folder + "/out.bin")
        let result = try outcome.get()
        #expect(TestFiles.equal(result.path, source))
        #expect(result.bytesReceived == Int64(size))
        #expect(!events.contains { if case .retrying = $0 { true } else { false } }, "\(events)")
    }

    /// Interrupted while its mirror serves it (the URL dead), the download's record names the
    /// mirror, whose ETag it keeps; the next run falls over again and resumes from the mirror
    /// with that validator.
    @Test func anInterruptedDownloadFromTheMirrorResumesThere() async throws {
        let name = "failover-resume-6m.bin"
        let size = 6 << 20
        let source = try TestNginx.makeFile(name, size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mirror = try TestNginx.url(name, location: "rate", query: "rate=1m")
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.mirrors = [mirror]
        let downloader = Downloader(configuration: configuration)
        // Cancelled from the thread that tells the progress (see MirrorTests).
        let started = Mutex<Download?>(nil)
        let first = try downloader.start(Self.dead, to: .file(folder + "/out.bin"), permits: nil) { event in
            if case .progress(let progress) = event, progress.completedBytes >= 1 << 20 {
                started.withLock { $0 }?.cancel()
            }
        }
        started.withLock { $0 = first }
        await #expect(throws: DownloadError.self) { try await first.value }
        guard case .record(let record) = ResumeStore(partPath: folder + "/out.bin.part").load() else {
            Issue.record("no resume record")
            return
        }
        #expect(record.url == mirror)
        #expect(record.etag != nil)
        let second = try downloader.start(Self.dead, to: .file(folder + "/out.bin"))
        let result = try await second.value
        #expect(result.resumedBytes == record.writtenRanges.byteCount)
        #expect(result.resumedBytes > 0)
        #expect(TestFiles.equal(result.path, source))
    }
}
