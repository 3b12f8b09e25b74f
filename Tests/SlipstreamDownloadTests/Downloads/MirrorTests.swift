import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

/// One file from several mirrors at once, on the real nginx: its locations serve the same files
/// (`/files/`, and `/rate/` at the rate in `?rate=` per connection), so they are mirrors of each
/// other; nginx's access log tells how many bytes each one sent.
@Suite(.serialized) struct MirrorTests {
    /// The download's events, gathered while it runs, and its result.
    static func run(_ url: String, mirrors: [String], to path: String, connections: Int = 8)
        async throws -> (result: DownloadResult, notices: [String])
    {
        var configuration = DownloadConfiguration()
        configuration.connections = connections
        // Small splits, so that the end is never a long piece left to a throttled mirror.
        configuration.minimumSplitSize = 128 << 10
        configuration.mirrors = mirrors
        let download = try Downloader(configuration: configuration).start(url, to: .file(path))
        var notices: [String] = []
        for await event in download.events {
            if case .notice(let text) = event { notices.append(text) }
        }
        return (try await download.value, notices)
    }

    /// nginx's count of body bytes sent for `path`, once at least `minimum` (a request is
    /// logged when it ends, which may be a moment after the client closed it).
    static func bytesSent(_ path: String, atLeast minimum: Int = 1) async throws -> Int {
        for _ in 0..<100 {
            let sent = try TestNginx.bodyBytesSent(path: path)
            if sent >= minimum { return sent }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try TestNginx.bodyBytesSent(path: path)
    }

    @Test(arguments: [true, false])
    func aThrottledMirrorAndAFastOneBothServeAndTheFastOneServesMost(throttledFirst: Bool) async throws {
        let name = "mirror-\(throttledFirst ? "a" : "b")-16m.bin"
        let size = 16 << 20
        let source = try await TestNginx.makeFileOffPool(name, size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Throttled hard: even at 8 connections it could serve half the file only if the
        // download took over 32 s, so a loaded machine cannot make it look fast (at 128 KiB/s a
        // connection, a full parallel run on 2 cores once saw it serve 75%: 12 s of a fast
        // mirror starved).
        let throttled = try TestNginx.url(name, location: "rate", query: "rate=32k")
        let fast = try TestNginx.url(name)
        let (result, notices) = try await Self.run(
            throttledFirst ? throttled : fast,
            mirrors: [throttledFirst ? fast : throttled], to: folder + "/out.bin")
        #expect(notices.isEmpty)
        let exact = await TestFiles.equalOffPool(result.path, source)
        #expect(exact)
        #expect(result.bytesReceived == Int64(size))
        let fromThrottled = try await Self.bytesSent("/rate/\(name)")
        let fromFast = try await Self.bytesSent("/files/\(name)")
        #expect(fromThrottled > 0)
        #expect(fromFast > fromThrottled)
    }

    @Test func aMirrorServingAnotherFileOfTheSameSizeIsDropped() async throws {
        let size = 8 << 20
        let source = try TestNginx.makeFile("mirror-same-8m.bin", size: size)
        // Another file of the same size; an older modification time gives it another ETag.
        let other = try TestNginx.makeFile("mirror-other-8m.bin", size: size)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
            ofItemAtPath: other)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (result, notices) = try await Self.run(
            try TestNginx.url("mirror-same-8m.bin", location: "rate", query: "rate=4m"),
            mirrors: [try TestNginx.url("mirror-other-8m.bin")], to: folder + "/out.bin")
        #expect(TestFiles.equal(result.path, source))
        #expect(notices.count == 1)
        #expect(notices.first?.contains("mirror-other-8m.bin serves a different file (ETag ") == true, "\(notices)")
        #expect(notices.first?.hasSuffix("dropped, its ranges go to the other sources") == true)
        // Its head was read, none of its body.
        #expect(result.bytesReceived == Int64(size))
    }

    @Test(arguments: [
        ("/files/mirror-missing.bin", "failed: "),
        ("connection refused", "(3 times in a row)"),
    ])
    func aFailingMirrorIsDropped(mirror: String, reason: String) async throws {
        let size = 4 << 20
        let source = try TestNginx.makeFile("mirror-kept-4m.bin", size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Port 1 on loopback: nothing listens there.
        let url = mirror.hasPrefix("/") ? "http://127.0.0.1:\(try TestNginx.port())\(mirror)" : "http://127.0.0.1:1/x.bin"
        let (result, notices) = try await Self.run(
            try TestNginx.url("mirror-kept-4m.bin", location: "rate", query: "rate=1m"), mirrors: [url],
            to: folder + "/out.bin")
        #expect(TestFiles.equal(result.path, source))
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("mirror \(url) failed: ") == true, "\(notices)")
        #expect(notices.first?.contains(reason) == true, "\(notices)")
        if mirror.hasPrefix("/") { #expect(notices.first?.contains("404") == true, "\(notices)") }
    }

    /// Mirrors that answer a range wrongly, on the in-test server: each is dropped at its first
    /// answer, before a byte of it is written; the primary (paced, so that the mirror is asked)
    /// gives the exact file.
    @Test(arguments: [
        ("/whole", "with status 200"),
        ("/shifted", "with Content-Range bytes "),
        ("/bigger", "serves a file of 2097153 bytes, not 2097152 bytes"),
    ])
    func aMirrorThatAnswersRangesWronglyIsDropped(path: String, problem: String) async throws {
        let content = TestFiles.randomBytes(2 << 20, seed: 11)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            switch request.path {
            case "/whole":
                response = .init(status: 200, headers: [("ETag", "\"v1\"")], body: content)
            case "/shifted" where response.status == 206:
                let start = request.range!.start + 1
                response = .init(
                    status: 206, headers: [("Content-Range", "bytes \(start)-\(content.count - 1)/\(content.count)")],
                    body: Array(content[Int(start)...]))
            case "/bigger" where response.status == 206:
                // The same bytes, said to be of a file one byte longer.
                let header = response.headers.firstIndex { $0.0 == "Content-Range" }!
                let range = response.headers[header].1.prefix { $0 != "/" }
                response.headers[header].1 = "\(range)/\(content.count + 1)"
            default:
                response.bytesPerSecond = 4 << 20
            }
            return response
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (result, notices) = try await Self.run(
            server.url("/file.bin"), mirrors: [server.url(path)],
            to: folder + "/out.bin", connections: 4)
        #expect(TestFiles.contents(of: result.path, equal: content))
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("mirror \(server.url(path)) ") == true, "\(notices)")
        #expect(notices.first?.contains(problem) == true, "\(notices)")
        #expect(result.bytesReceived == Int64(content.count))
    }

    @Test func anInterruptedDownloadFromMirrorsRecordsTheFirstURLAndResumes() async throws {
        let name = "mirror-resume-6m.bin"
        let size = 6 << 20
        let source = try TestNginx.makeFile(name, size: size)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let primary = try TestNginx.url(name, location: "rate", query: "rate=1m")
        let mirror = try TestNginx.url(name, location: "rate", query: "rate=512k")
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.mirrors = [mirror]
        let downloader = Downloader(configuration: configuration)
        // Cancelled from the thread that tells the progress, not from a task reading events: on
        // a loaded machine that task could run only after the download had finished.
        let started = Mutex<Download?>(nil)
        let first = try downloader.start(primary, to: .file(folder + "/out.bin"), permits: nil) { event in
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
        #expect(record.url == primary)
        let second = try downloader.start(primary, to: .file(folder + "/out.bin"))
        let result = try await second.value
        // Records count whole pieces: each connection's piece in progress is fetched again.
        #expect(result.resumedBytes == record.writtenRanges.byteCount)
        #expect(result.resumedBytes >= (1 << 20) - Int64(configuration.connections) * record.pieceSize)
        #expect(TestFiles.equal(result.path, source))
    }
}
