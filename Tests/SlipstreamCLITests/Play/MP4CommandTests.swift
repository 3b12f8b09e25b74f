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

/// `play --start T` and `info` on a 40 s fragmented MP4 (1 s fragments) from a server that
/// answers ranges: with a segment index (`sidx`) the seek goes to the fragment before T; without
/// one it is found by probing the fragments' decode times (`tfdt`). The output from T on is
/// `faad`'s decode of the same audio unfragmented (fragments have no edit list: their first
/// packet's priming is heard, which faad leaves out), its length exact, the left channel (the
/// sweep; the right is noise, which libfaad2 fills from a generator a seek restarts) within 1%
/// but in the last packet (past the source's end, where the left is coded as noise too).
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (the audio fixtures)"))
struct MP4FragmentCommandTests {
    /// `faad` of the unfragmented file.
    static func reference() async throws -> [UInt8] {
        try await ReferenceDecoder.faad(try AudioFixtures.path("mp4-aac-long-faststart.m4a"))
    }

    /// The left channel of 16-bit stereo PCM.
    static func left(_ pcm: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(pcm)
        return stride(from: 0, to: bytes.count - 3, by: 4).flatMap { bytes[$0..<$0 + 2] }
    }

    @Test(arguments: ["mp4-aac-long-fragmented.mp4", "mp4-aac-long-fragmented-sidx.mp4"], [0.3, 17.25, 38.9])
    func startPlaysTheReferenceFromThere(name: String, start: Double) async throws {
        let reference = try await Self.reference()
        // faad's frame k is the fragments' frame k + 1,024.
        let expected = reference[((Int(start * 44100) - 1024) * 4)...]
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        for source in [server.url("/a.mp4"), try AudioFixtures.path(name)] {
            let folder = try TestFiles.makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try await CommandRunner.run(["play", source, "--start", "\(start)", "--output", "wav:out.wav", "-q"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(pcm.count == expected.count, "\(source) from \(start) s: \(pcm.count / 4) vs \(expected.count / 4) frames")
            let heard = pcm.count - 1024 * 4
            let step = OggCommandTests.largestStep(Self.left(pcm.prefix(heard)), Self.left(expected.prefix(heard)))
            #expect(step < 330, "\(source) from \(start) s: the left channel differs by \(step)")
        }
        let requests = server.requests.count
        #expect(requests >= 1 && requests <= (name.contains("sidx") ? 2 : 10), "\(requests) requests")
        print("seek \(name) to \(start) s over HTTP: \(requests) requests")
    }

    @Test func infoTellsTheLengthFromTheSegmentIndex() async throws {
        let name = "mp4-aac-long-fragmented-sidx.mp4"
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let output = try await CommandRunner.run(["info", "--json", server.url("/a.mp4")], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let audio = try #require(report["audio"] as? [String: Any])
        // ffprobe's figure: 40 s and the 1,024 frames of priming.
        #expect(abs((audio["duration"] as? Double ?? 0) - 1_765_024.0 / 44100) < 1e-9)
        #expect(audio["durationSource"] as? String == "header")
        #expect(audio["isSeekableByTime"] as? Bool == true)
        #expect(server.bodyBytesSent < content.count / 2, "read \(server.bodyBytesSent) of \(content.count) bytes")
    }
}

/// `slipstream info` lists an M4B's chapters, in its text and in `--json`, from the Nero
/// chapters or (without them) the QuickTime chapter track, whose titles lie in `mdat`: read
/// with the audio's head (one more read when the index comes after the audio).
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (the audio fixtures)"))
struct MP4ChapterCommandTests {
    @Test(arguments: ["mp4-aac-chapters.m4b", "mp4-aac-chapters-faststart.m4b"], [false, true])
    func infoListsTheChapters(name: String, quickTimeOnly: Bool) async throws {
        var bytes = try AudioFixtures.bytes(name)
        if quickTimeOnly, let chpl = bytes.firstRange(of: Array("chpl".utf8)) {
            bytes.replaceSubrange(chpl, with: Array("free".utf8))
        }
        let content = bytes
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let output = try await CommandRunner.run(["info", "--json", server.url("/a.m4b")], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let audio = try #require(report["audio"] as? [String: Any])
        let chapters = try #require(audio["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Opening", "Second part"])
        #expect(chapters.map { $0["startTime"] as? Double } == [0, 1.25])
        let source = try #require(report["source"] as? [String: Any])
        #expect((source["requests"] as? Int ?? 99) <= (name.contains("faststart") ? 1 : 3), "\(source)")

        let text = try await CommandRunner.run(["info", server.url("/a.m4b")], in: NSTemporaryDirectory())
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Chapter 1:") && $0.hasSuffix(" 0:00.000 Opening") }, "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("Chapter 2:") && $0.hasSuffix(" 0:01.250 Second part") }, "\(text.stdout)")
    }

    @Test func aFileWithoutChaptersHasNoChapterField() async throws {
        let output = try await CommandRunner.run(
            ["info", "--json", try AudioFixtures.path("mp4-aac-faststart.m4a")], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        #expect(!output.stdout.contains("chapters") && !output.stdout.contains("Chapter"))
    }
}
