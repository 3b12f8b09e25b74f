import Foundation
import SlipstreamDownload
import Synchronization
import Testing
import TestSupport

/// `HLSDownloader` against the in-test server: four segments of random bytes, the last two of
/// them held at a gate where a test needs a download under way (never the machine's speed).
/// Each test waits at gates and for events: the time limit turns a lost event into a failure.
@Suite(.timeLimit(.minutes(5))) struct HLSDownloaderTests {
    /// The segments `s0.ts` ... `s3.ts`.
    static let segments = (0..<4).map { TestFiles.fastRandomBytes((40 + $0) << 10, seed: UInt64(20 + $0)) }

    static let playlist = Array(
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
            + (0..<4).map { "#EXTINF:2.0,\ns\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n").utf8)

    /// A server of the playlist (`/index.m3u8`) and its segments, `s2.ts` and `s3.ts` held
    /// after 1 KiB until `gate` opens (when there is one); `answer` may answer first.
    static func server(gate: Gate? = nil, answer: (@Sendable (TestHTTPServer.Request) -> TestHTTPServer.Response?)? = nil) throws
        -> TestHTTPServer
    {
        try TestHTTPServer { request in
            if let answer = answer?(request) { return answer }
            if request.path == "/index.m3u8" { return .file(playlist, for: request) }
            guard let index = (0..<4).first(where: { request.path == "/s\($0).ts" }) else { return .init(status: 404) }
            var response = TestHTTPServer.Response.file(segments[index], for: request)
            if index >= 2, let gate {
                response.holdAfter = 1 << 10
                response.gate = gate
            }
            return response
        }
    }

    static var configuration: HLSDownloadConfiguration {
        var configuration = HLSDownloadConfiguration()
        configuration.download = .heldAtAGate
        configuration.download.retryDelay = .milliseconds(10)
        return configuration
    }

    /// Reads `events` until `matching` is seen; an end first is an issue.
    static func wait(for events: inout EventStream<HLSDownloadEvent>.AsyncIterator, _ matching: (HLSDownloadEvent) -> Bool) async {
        while let event = await events.next() {
            if matching(event) { return }
            switch event {
            case .finished, .failed:
                Issue.record("the download ended: \(event)")
                return
            default: continue
            }
        }
        Issue.record("the events ended before a match")
    }

    /// The segments' files are done, and those held are not.
    static func twoDone(_ event: HLSDownloadEvent) -> Bool {
        if case .progress(let progress) = event { progress.completedResources == 2 } else { false }
    }

    @Test func theSegmentsAreJoinedInOrderAndTheEventsComeInOrder() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let output = try TestFiles.makeTemporaryFolder() + "/out.ts"
        let download = try HLSDownloader(configuration: Self.configuration).start(server.url("/index.m3u8"), to: output)
        let result = try await download.value
        #expect(result.segmentCount == 4 && result.fetchedResources == 4 && result.resumedResources == 0)
        #expect(result.bytes == Int64(Self.segments.joined().count) && result.path == output)
        #expect(result.playlistURL == server.url("/index.m3u8") && result.duration == .seconds(8))
        let joined = TestFiles.contents(of: output, equal: Array(Self.segments.joined()))
        #expect(joined)
        #expect(!FileManager.default.fileExists(atPath: output + ".hls.part"))

        // A reader that starts after the end gets every event: the plan, progress, the end.
        var events: [HLSDownloadEvent] = []
        for await event in download.events { events.append(event) }
        guard case .planned(let info) = events.first, case .finished(let finished) = events.last else {
            Issue.record("\(events)")
            return
        }
        #expect(info.segmentCount == 4 && info.resourceCount == 4 && info.resumedResources == 0)
        #expect(info.partFolder == output + ".hls.part")
        #expect(finished == result)
        let progress = events.dropFirst().dropLast().compactMap { if case .progress(let p) = $0 { p } else { nil } }
        #expect(progress.count == events.count - 2)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedResources <= $1.completedResources })
        #expect(progress.last?.completedResources == 4 && progress.last?.completedBytes == result.bytes)
        #expect(download.progress == progress.last)
    }

    /// Cancelled with two segments done, the same download fetches only the two others (each
    /// finished one is requested once in all).
    @Test func aCancelledDownloadResumesWithoutFetchingFinishedSegmentsAgain() async throws {
        let gate = Gate()
        let server = try Self.server(gate: gate)
        defer {
            gate.open()
            server.stop()
        }
        let output = try TestFiles.makeTemporaryFolder() + "/out.ts"
        let download = try HLSDownloader(configuration: Self.configuration).start(server.url("/index.m3u8"), to: output)
        var events = download.events.makeAsyncIterator()
        await Self.wait(for: &events, Self.twoDone)
        download.cancel()
        do {
            _ = try await download.value
            Issue.record("the download finished")
        } catch {
            #expect(error.code == .cancelled)
            #expect(error.resumableFile == output + ".hls.part")
        }
        #expect(download.progress.completedResources == 2)
        #expect((0..<2).allSatisfy { FileManager.default.fileExists(atPath: output + ".hls.part/\($0)") })
        #expect(!FileManager.default.fileExists(atPath: output))

        gate.open()
        let again = try await HLSDownloader(configuration: Self.configuration).download(from: server.url("/index.m3u8"), to: output)
        #expect(again.resumedResources == 2 && again.fetchedResources == 2)
        let joined = TestFiles.contents(of: output, equal: Array(Self.segments.joined()))
        #expect(joined)
        for index in 0..<2 { #expect(server.requests.filter { $0.path == "/s\(index).ts" }.count == 1, "s\(index).ts") }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheDownload() async throws {
        let gate = Gate()
        let server = try Self.server(gate: gate)
        defer {
            gate.open()
            server.stop()
        }
        let output = try TestFiles.makeTemporaryFolder() + "/out.ts"
        let download = try HLSDownloader(configuration: Self.configuration).start(server.url("/index.m3u8"), to: output)
        let waiter = Task { try await download.value }
        var events = download.events.makeAsyncIterator()
        await Self.wait(for: &events, Self.twoDone)
        waiter.cancel()
        let outcome = await waiter.result
        guard case .failure(let error as DownloadError) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(error.code == .cancelled)
        while let event = await events.next() {
            if case .failed(let failure) = event { #expect(failure.code == .cancelled) }
        }
    }

    /// A segment's failure stops the others and names it; a retry names its segment too.
    @Test func aFailingSegmentIsNamedAndStopsTheDownload() async throws {
        let tries = Mutex(0)
        let server = try Self.server { request in
            guard request.path == "/s1.ts" else { return nil }
            // The first answer is retried; the second is final.
            return .init(
                status: tries.withLock {
                    $0 += 1; return $0
                } == 1 ? 503 : 404)
        }
        defer { server.stop() }
        let output = try TestFiles.makeTemporaryFolder() + "/out.ts"
        let download = try HLSDownloader(configuration: Self.configuration).start(server.url("/index.m3u8"), to: output)
        do {
            _ = try await download.value
            Issue.record("the download finished")
        } catch {
            #expect(error.code == .httpStatus)
            #expect(error.message.hasPrefix("segment 1 (\(server.url("/s1.ts"))): "), "\(error.message)")
            #expect(error.message.contains("404"), "\(error.message)")
            #expect(error.resumableFile == output + ".hls.part")
        }
        var retries: [DownloadError] = []
        for await event in download.events {
            if case .retrying(let error, _, _) = event { retries.append(error) }
        }
        #expect(retries.count == 1 && retries.first?.message.hasPrefix("segment 1 (") == true, "\(retries)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A playlist the planner refuses leaves nothing behind.
    @Test func aLivePlaylistIsRefusedAndLeavesNothing() async throws {
        let server = try Self.server { request in
            request.path == "/index.m3u8" ? .file(Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns0.ts\n".utf8), for: request) : nil
        }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        do {
            _ = try await HLSDownloader().download(from: server.url("/index.m3u8"), to: folder + "/out.ts")
            Issue.record("the download finished")
        } catch {
            #expect(error.code == .liveStream)
            #expect(error.message.contains("is a live HLS playlist"))
            #expect(!error.message.contains("slipstream"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func anOutputThatExistsIsRefusedWithoutOverwrite() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let output = try TestFiles.makeTemporaryFolder() + "/out.ts"
        try Data([1]).write(to: URL(fileURLWithPath: output))
        do {
            _ = try await HLSDownloader().download(from: server.url("/index.m3u8"), to: output)
            Issue.record("the download finished")
        } catch {
            #expect(error.code == .exists && error.path == output)
        }
        #expect(server.requests.isEmpty)
    }
}
