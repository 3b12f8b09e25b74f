import Foundation
import Testing
import TestSupport

@testable import SlipstreamAudio

/// An MP4 whose index follows its audio, played from a server: the index is fetched with a
/// range request as soon as the first answer shows where it is (not read through the audio),
/// and a server without ranges is read through to it as before.
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct MP4OverHTTPTests {
    static let name = "mp4-aac-moov-end.m4a"

    /// Plays `server`'s file to the end as fast as possible; checks the audio against a decode
    /// of the whole file and returns the requests the server got.
    static func playChecked(_ server: TestHTTPServer, _ content: [UInt8]) async throws -> [TestHTTPServer.Request] {
        let recording = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { recording }
        let run = try await PlayerRun.collect(AudioStreamer(url: server.url("/a.m4a"), configuration: configuration))
        #expect(run.finalState == .done)
        let (_, reference) = try MP4DecodingTests.decode(content)
        let played = recording.segments.last ?? []
        #expect(played.count == reference.count)
        #expect(played.elementsEqual(reference))
        return server.requests
    }

    @Test func theIndexIsFetchedByARangeNotReadThroughTheAudio() async throws {
        let content = try AudioFixtures.bytes(Self.name)
        let moov = try #require(content.indices.first { content[$0..<min($0 + 4, content.count)].elementsEqual("moov".utf8) }) - 4
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let requests = try await Self.playChecked(server, content)
        // The first answer (no range), the index, the audio again.
        #expect(requests.count == 3)
        #expect(requests.first?.range == nil)
        #expect(requests.count > 1 && requests[1].range?.start == Int64(moov))
    }

    /// A server that answers every request with the whole file (saying nothing of ranges): the
    /// jump to the index is answered from byte 0 and the audio read through to it.
    @Test func aServerWithoutRangesIsReadThroughToTheIndex() async throws {
        let content = try AudioFixtures.bytes(Self.name)
        let server = try TestHTTPServer { _ in TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mp4")], body: content)
        }
        defer { server.stop() }
        let requests = try await Self.playChecked(server, content)
        // The first answer, the jump to the index, the way back to the audio: each from byte 0.
        #expect(requests.count == 3)
    }
}
