import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload
import SlipstreamHTTP

/// Servers that lie, stall, close early or stream without a length: every case ends in the
/// exact file or a clear error, never a wrong file reported as a success.
@Suite struct DownloaderFaultTests {
    static let content = TestFiles.randomBytes(3 << 20, seed: 7)

    func download(
        _ server: TestHTTPServer, connections: Int = 4, engine: HTTPEngine = .shared,
        configure: (inout DownloadConfiguration) -> Void = { _ in }
    )
        async throws -> (Result<DownloadResult, DownloadError>, String)
    {
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        configuration.minimumSplitSize = 256 << 10
        configure(&configuration)
        let download = try Downloader(engine: engine, configuration: configuration)
            .start(server.url("/file.bin"), to: .folder(folder))
        do {
            return (.success(try await download.value), folder)
        } catch {
            return (.failure(error), folder)
        }
    }

    @Test func rangesAnsweredWith200UseOneConnection() async throws {
        let server = try TestHTTPServer { _ in .init(status: 200, body: Self.content) }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        let done = try result.get()
        #expect(!done.segmented)
        let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
        #expect(exact)
        #expect(server.requests.count == 1)
    }

    /// The first answer is honest; later ones are 200s, wrong starts or wrong totals. Those
    /// are dropped before a byte is written: the download ends with the exact file (the honest
    /// connection took the ranges back) or a clear error, after a few requests, never a wrong file.
    @Test(arguments: ["200", "start", "total"])
    func lyingRangeAnswersAreDropped(lie: String) async throws {
        let server = try TestHTTPServer { request in
            guard let range = request.range, range.start > 0 else { return .file(Self.content, for: request) }
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            switch lie {
            case "200": return .init(status: 200, body: Self.content)
            case "start":
                let end = range.end ?? Int64(Self.content.count - 1)
                response.headers.removeAll { $0.0 == "Content-Range" }
                response.headers.append(("Content-Range", "bytes \(range.start + 1)-\(end)/\(Self.content.count)"))
            default:
                response.headers.removeAll { $0.0 == "Content-Range" }
                response.headers.append(("Content-Range", "bytes \(range.start)-\(range.end ?? 0)/\(Self.content.count + 5)"))
            }
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        switch result {
        case .success:
            let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
            #expect(exact)
        case .failure(let error):
            #expect(error.code == .rangeNotHonoured)
            #expect(error.message.contains("does not honour ranges reliably"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/file.bin"))
        }
        #expect(server.requests.count <= 4 + DownloadStateMachine.maxRangeLies)
    }

    @Test func aConnectionThatClosesMidBodyIsReplaced() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            let n = count.withLock {
                $0 += 1; return $0
            }
            if n <= 3 { response.closeAfter = 100_000 }
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        let done = try result.get()
        let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
        #expect(exact)
        #expect(done.bytesReceived >= Int64(Self.content.count))
    }

    /// A server that closes every answer after 200 000 bytes: each connection makes progress
    /// before it is cut, so no cut starts a streak, and one retry per streak is enough to
    /// fetch the whole file (the connections, cut at about the same moment, used to count as
    /// one streak of failures and end the download at once).
    @Test func aServerThatCutsEveryAnswerIsCarriedThroughWithFewRetries() async throws {
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            response.closeAfter = 200_000
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server) {
            $0.retries = 1
            $0.retryDelay = .milliseconds(10)
        }
        if case .failure(let error) = result { Issue.record("\(error)") }
        let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
        #expect(exact)
    }

    @Test func aServerThatAlwaysClosesFailsClearlyAndKeepsThePart() async throws {
        // The first answer gives 50 000 bytes, every later one none: no progress ends the streak
        // of failures, however the connections' ends interleave.
        let answered = Mutex(0)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            response.closeAfter = answered.withLock { count in
                defer { count += 1 }
                return count == 0 ? 50_000 : 0
            }
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server) {
            $0.retries = 3
            $0.retryDelay = .milliseconds(10)
        }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .network)
        #expect(error.message.contains("gave up"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/file.bin"))
        #expect(FileManager.default.fileExists(atPath: folder + "/file.bin.part"))
    }

    @Test func aStalledConnectionIsDroppedAndItsRangeFetchedElsewhere() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            if count.withLock({
                $0 += 1; return $0
            }) == 2 {
                response.stallAfter = 10_000
            }
            return response
        }
        defer { server.stop() }
        // An engine of its own, so the other tests' transfers cannot slow this one's first answer.
        let engine = HTTPEngine()
        defer { engine.shutdown() }
        let (result, folder) = try await download(server, engine: engine) { $0.stallTimeout = .seconds(2) }
        if case .failure(let error) = result {
            Issue.record("\(error) \(server.requests.map { $0.headers["range"] ?? "" })")
        }
        let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
        #expect(exact)
    }

    @Test func chunkedWithoutLengthIsStreamed() async throws {
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, body: Self.content)
            response.chunked = true
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        let done = try result.get()
        #expect(!done.segmented && done.bytes == Int64(Self.content.count))
        let exact = TestFiles.contents(of: folder + "/file.bin", equal: Self.content)
        #expect(exact)
    }

    @Test func a200ThatEndsEarlyIsRetriedFromTheStartThenAnError() async throws {
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, body: Self.content)
            response.closeAfter = 1000
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server) {
            $0.retries = 2
            $0.retryDelay = .milliseconds(10)
        }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .network)
        #expect(error.message.contains("gave up after 2 retries"))
        #expect(server.requests.count == 3)
        #expect(!FileManager.default.fileExists(atPath: folder + "/file.bin"))
    }

    /// A body of 1 MB of the 3 MiB announced, from a server without ranges, every time: the
    /// download fails, and its `.part` (which has no records: a stream starts over) goes with
    /// it, as does every restarted attempt's. (The last one's was left, without records.)
    @Test func aShortBodyWithoutRangesLeavesNoPart() async throws {
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, body: Self.content)
            response.closeAfter = 1_000_000
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server) {
            $0.retries = 1
            $0.retryDelay = .milliseconds(10)
        }
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .network)
        #expect(error.resumableFile == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// A stream that restarts opens its `.part` file again only once the old writer has closed
    /// it (and let go of its lock), however slow the disk is.
    @Test func aStreamRestartsOnASlowDiskIntoTheSameFile() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, body: Self.content)
            if count.withLock({
                $0 += 1; return $0
            }) == 1 {
                response.closeAfter = 700_000
            }
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server) {
            $0.retryDelay = .milliseconds(1)
            $0.beforeWrite = { _, _ in usleep(20_000) }
        }
        let done = try result.get()
        #expect(done.path == folder + "/file.bin")
        #expect(TestFiles.contents(of: done.path, equal: Self.content))
    }

    @Test func redirectToAnotherPath() async throws {
        let server = try TestHTTPServer { request in
            request.path == "/file.bin"
                ? .init(status: 302, headers: [("Location", "/real/data.bin")])
                : .file(Self.content, for: request)
        }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        let done = try result.get()
        #expect(done.path == folder + "/data.bin")
        let exact = TestFiles.contents(of: done.path, equal: Self.content)
        #expect(exact)
        // Later ranges go straight to the redirect's target.
        #expect(server.requests.filter { $0.path == "/file.bin" }.count == 1)
    }

    @Test func contentDispositionNamesTheFile() async throws {
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(Self.content, for: request)
            response.headers.append(("Content-Disposition", "attachment; filename=\"../named.bin\""))
            return response
        }
        defer { server.stop() }
        let (result, folder) = try await download(server)
        #expect(try result.get().path == folder + "/named.bin")
        // The .part made before the answer, under the URL's name, is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["named.bin"])
    }

    /// A download cancelled before any answer leaves no file: not even the `.part` made before
    /// its first request.
    @Test func cancelledBeforeAnyAnswerLeavesNothing() async throws {
        let gate = Gate()
        let asked = Mutex(false)
        let server = try TestHTTPServer { request in
            asked.withLock { $0 = true }
            while gate.isClosed { usleep(5_000) }
            return .file(Self.content, for: request)
        }
        defer {
            gate.open()
            server.stop()
        }
        let folder = try TestFiles.makeTemporaryFolder()
        let download = try Downloader().start(server.url("/file.bin"), to: .folder(folder))
        while !asked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        download.cancel()
        await #expect(throws: DownloadError.self) { try await download.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// 1 PiB, past the filesystem's largest file (EFBIG, not ENOSPC: no space freed would
    /// help, so it is no `noSpace`): refused at the reservation, and nothing is left.
    @Test func aFileTooLargeForTheFilesystemIsRefusedBeforeTheDownloadStarts() async throws {
        let huge: Int64 = 1 << 50
        // Only the first answer counts: the connections opened beside it are held until the end
        // (answered at once, theirs raced the reservation's failure on a loaded machine).
        let others = Gate()
        let server = try TestHTTPServer { request in
            if request.range?.start ?? 0 > 0 { others.wait() }
            return .init(status: 206, headers: [("Content-Range", "bytes 0-\(huge - 1)/\(huge)")], body: [])
        }
        defer {
            others.open()
            server.stop()
        }
        let (result, folder) = try await download(server)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.code == .disk)
        #expect(error.message.contains("file.bin.part cannot be \(huge) bytes long"), "\(error.message)")
        #expect(error.resumableFile == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
