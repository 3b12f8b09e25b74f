import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Segments fetched ahead through the whole player, from the in-test server: several at once on
/// a link limited per connection, and a segment whose first fetch stalls raced by a second one;
/// the audio is what the stream plays without them.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSPrefetchTests {
    /// The MPEG-TS stream's playlist and segments, served by `respond` (given the file's bytes).
    static func serve(_ respond: @escaping @Sendable (TestHTTPServer.Request, [UInt8]) -> TestHTTPServer.Response) throws
        -> TestHTTPServer
    {
        let folder = try HLSFixtures.transportStream()
        var files: [String: [UInt8]] = ["/index.m3u8": try HLSFixtures.bytes(folder + "/index.m3u8")]
        for (index, segment) in try HLSAudioSourceTests.numbered(folder, "s", "ts").enumerated() { files["/s\(index).ts"] = segment }
        return try TestHTTPServer { [files] request in
            guard let content = files[request.path] else { return TestHTTPServer.Response(status: 404) }
            return respond(request, content)
        }
    }

    @Test func segmentsAreFetchedSeveralAtOnceOnALinkLimitedPerConnection() async throws {
        let server = try await offPool {
            try Self.serve { request, content in
                var response = TestHTTPServer.Response.file(content, for: request)
                if request.path.hasSuffix(".ts") { response.bytesPerSecond = 100_000 }
                return response
            }
        }
        defer { server.stop() }
        let (run, played) = try await PlaylistPlayerTests.play(server.url("/index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let (_, reference) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(played == reference)
        // The segment playing and the three after it (on a loaded machine a fetch slower than
        // its segment may be raced too).
        #expect(server.maxResponsesInProgress >= 3, "\(server.maxResponsesInProgress)")
        #expect(Set(server.requests.map(\.path).filter { $0.hasSuffix(".ts") }) == ["/s0.ts", "/s1.ts", "/s2.ts", "/s3.ts"])
    }

    @Test func aSegmentWhoseFetchStallsIsRacedByASecondConnection() async throws {
        let fetches = Mutex(0)
        let server = try await offPool {
            try Self.serve { request, content in
                var response = TestHTTPServer.Response.file(content, for: request)
                if request.path == "/s2.ts",
                    fetches.withLock({ count in
                        count += 1
                        return count == 1
                    })
                {
                    response.stallAfter = 1000
                }
                return response
            }
        }
        defer { server.stop() }
        let (run, played) = try await PlaylistPlayerTests.play(server.url("/index.m3u8"))
        #expect(run.finalState == .done, "\(run.events)")
        let (_, reference) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        #expect(played == reference)
        #expect(fetches.withLock { $0 } == 2)
        #expect(run.reconnects == 0)
    }
}
