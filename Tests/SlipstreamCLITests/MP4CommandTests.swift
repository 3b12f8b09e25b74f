import Foundation
import Testing
import TestSupport

/// `slipstream play` and `info` on ffmpeg's M4A files, from nginx and from the file: the index
/// after the audio (ffmpeg's default; the M4A once taken for MPEG Layer II) is read with one
/// range request for it, then the audio from its start.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct MP4CommandTests {
    static let files = ["mp4-aac-moov-end.m4a", "mp4-aac-faststart.m4a", "mp4-aac-chapters.m4b"]

    /// The source's frames (the fixture script writes them).
    static func sourceFrames(_ name: String) throws -> Int {
        let text = try String(contentsOfFile: try AudioFixtures.path("mp4-source-44100.frames"), encoding: .utf8)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test(arguments: files) func infoFromURLAndFile(name: String) async throws {
        let frames = try Self.sourceFrames(name)
        for target in [try AudioFixtures.served(name), try AudioFixtures.path(name)] {
            let output = try await CommandRunner.run(["info", "--json", target], in: NSTemporaryDirectory())
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let audio = try #require(report["audio"] as? [String: Any])
            let format = try #require(audio["format"] as? [String: Any])
            #expect(format["codec"] as? String == "aacRaw")
            #expect(format["sampleRate"] as? Int == 44100)
            #expect(audio["trimmedFrameCount"] as? Int == frames)
            #expect(["header", "counted"].contains(audio["durationSource"] as? String ?? ""))
            let source = try #require(report["source"] as? [String: Any])
            if target.hasPrefix("http") {
                // Head, then (index after the audio) the tail: two requests at most.
                #expect((source["requests"] as? Int ?? 99) <= 2, "\(source)")
            }
        }
    }

    @Test(arguments: files) func playFromURLAndFileGivesTheSourcesLength(name: String) async throws {
        let frames = try Self.sourceFrames(name)
        for target in [try AudioFixtures.served(name), try AudioFixtures.path(name)] {
            let folder = try TestFiles.makeTemporaryFolder()
            let output = try await CommandRunner.run(["play", target, "--output", "wav:out.wav", "-q"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(pcm.count == frames * 4, "\(target)")
        }
    }

    @Test func playSeeksInTheMiddle() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let url = try AudioFixtures.served("mp4-aac-moov-end.m4a")
        let output = try await CommandRunner.run(["play", url, "--start", "1.5", "--output", "wav:out.wav", "-q"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
        #expect(pcm.count == (try Self.sourceFrames("") - 66150) * 4)
    }
}
