import Foundation
import Testing
import TestSupport

/// `slipstream play` of streams whose frames are there and whose contents are not audio, run as
/// a user would (the built binary, local files, the null output): the count on standard error and
/// in `--json`, and exit status 6 when most of the stream could not be decoded.
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct UndecodableCommandTests {
    /// `bytes` written as `name` in `folder`.
    static func write(_ bytes: [UInt8], _ name: String, in folder: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    /// MP3 frames with real headers and random payloads: exit status 6 and one error line that
    /// names the file and the count (it played 3 s of silence and noise and exited 0).
    @Test func mp3FramesWithRandomPayloadsAreExitStatus6() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        try Self.write(GarbledAudio.mp3(try AudioFixtures.bytes("mp3-cbr128.mp3"), seed: 1) { _ in true }, "random.mp3", in: folder)
        let run = try await CommandRunner.run(["play", "random.mp3", "--output", "null"], in: folder)
        #expect(run.status == 6, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.last?.hasPrefix("slipstream: random.mp3: most of the stream could not be decoded: ") == true, "\(run.stderr)")
        #expect(lines.last?.hasSuffix(" of 64 frames") == true, "\(run.stderr)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("slipstream: warning: ") }, "\(run.stderr)")
    }

    /// A real M4A index over random bytes, with `--json`: the counts, then the error, and exit
    /// status 6 (it played 60 s of output and exited 0).
    @Test func anM4AIndexOverRandomBytesIsExitStatus6WithTheError() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let bytes = try #require(GarbledAudio.m4aHeadThenRandom(try AudioFixtures.bytes("mp4-aac-faststart.m4a"), seed: 1))
        try Self.write(bytes, "random.m4a", in: folder)
        let run = try await CommandRunner.run(["play", "random.m4a", "--output", "null", "--json"], in: folder)
        #expect(run.status == 6, "\(run.stderr)")
        let events = try Self.events(run.stdout)
        let counts = events.filter { $0["event"] as? String == "undecodable" }
        #expect(counts.last?["count"] as? Int == 64 && counts.last?["total"] as? Int == 64, "\(run.stdout)")
        let error = try #require(events.first { $0["event"] as? String == "error" })
        #expect(error["code"] as? String == "undecodable")
        #expect(error["message"] as? String == "random.m4a: most of the stream could not be decoded: 64 of 64 frames")
    }

    /// A few damaged frames among good ones: it plays to the end and exits 0, with a warning, the
    /// final count at the end, and the same count as the last JSON `undecodable` event.
    @Test func aFewDamagedFramesWarnWithTheCountAndExit0() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let original = try AudioFixtures.bytes("mp3-cbr128.mp3")
        // Every frame but the first (the Info frame) is audio; every 20th of them is damaged.
        let audio = GarbledAudio.mp3FrameCount(original) - 1
        let damaged = audio / 20
        try Self.write(GarbledAudio.mp3(original, seed: 3, impossible: true) { $0 > 0 && $0 % 20 == 0 }, "damaged.mp3", in: folder)
        let run = try await CommandRunner.run(["play", "damaged.mp3", "--output", "null", "--json"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("slipstream: warning: ") == true, "\(run.stderr)")
        #expect(lines.last.map(String.init) == "slipstream: \(damaged) of \(audio) frames could not be decoded", "\(run.stderr)")
        let counts = try Self.events(run.stdout).filter { $0["event"] as? String == "undecodable" }
        #expect(counts.last?["count"] as? Int == damaged && counts.last?["total"] as? Int == audio, "\(run.stdout)")
        let quiet = try await CommandRunner.run(["play", "damaged.mp3", "--output", "null", "-q"], in: folder)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// Each line of `stdout`, parsed.
    static func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
