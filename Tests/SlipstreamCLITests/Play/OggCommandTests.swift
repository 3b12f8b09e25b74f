import Foundation
import Testing
import TestSupport

/// `slipstream play` and `info` on Ogg Vorbis and Opus, from a file and from nginx: the PCM
/// against oggdec and opusdec (the same sample count, within a few LSB), the description with
/// its exact duration, a chained stream's titles as title events, and a broken file's error.
@Suite(
    .enabled("run with scripts/test.sh (nginx); sox, oggenc and opusenc make the fixtures") {
        let made = await OggFixtures.made()
        return made && (try? TestNginx.port()) != nil
    })
struct OggCommandTests {
    /// Fixture `name` served by nginx (copied once per run): its URL.
    static func served(_ name: String) throws -> String {
        let target = try TestNginx.filesFolder() + "/ogg-" + name
        if !FileManager.default.fileExists(atPath: target) {
            try Data(try OggFixtures.bytes(name)).write(to: URL(fileURLWithPath: target), options: .atomic)
        }
        return try TestNginx.url("ogg-" + name)
    }

    /// The largest difference between two blocks of 16-bit samples (`Int.max` when their lengths differ).
    static func largestStep(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return .max }
        var largest = 0
        for i in stride(from: 0, to: a.count - 1, by: 2) {
            let x = Int(Int16(bitPattern: UInt16(a[i]) | UInt16(a[i + 1]) << 8))
            let y = Int(Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8))
            largest = max(largest, abs(x - y))
        }
        return largest
    }

    @Test(arguments: ["vorbis-q3.ogg", "opus-64k.opus", "vorbis-chained.ogg", "opus-chained.opus"])
    func playWritesWhatTheReferenceDecoderWrites(_ name: String) async throws {
        let reference = try await OggFixtures.reference(name)
        for input in [try OggFixtures.path(name), try Self.served(name)] {
            let folder = try TestFiles.makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try await CommandRunner.run(["play", input, "--output", "wav:out.wav", "-q"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(pcm.count == reference.count, "\(input): \(pcm.count / 4) vs \(reference.count / 4) frames")
            #expect(Self.largestStep(pcm, reference) <= 2, "\(input)")
        }
    }

    @Test func aChainedStreamTellsEachLinksTitle() async throws {
        let output = try await CommandRunner.run(
            ["play", try Self.served("opus-chained.opus"), "--output", "null", "--json"], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        let events = try output.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let titles = events.filter { $0["event"] as? String == "title" }
        #expect(titles.map { $0["title"] as? String } == ["Some Artist - First Song", "Other Artist - Second Song"])
        #expect(titles.last?["artist"] as? String == "Other Artist")
        let formats = events.filter { $0["event"] as? String == "format" }.compactMap { $0["description"] as? String }
        #expect(formats == ["Opus (Ogg)", "Opus (Ogg, link 2)"])
    }

    @Test(arguments: [("vorbis-long.ogg", 44100), ("opus-long.opus", 48000)])
    func infoReadsTheHeadAndTheLastPage(_ name: String, _ rate: Int) async throws {
        let frames = try await OggFixtures.reference(name).count / 4
        let url = try Self.served(name)
        var audio: [[String: Any]] = []
        for input in [url, try OggFixtures.path(name)] {
            let output = try await CommandRunner.run(["info", "--json", input], in: NSTemporaryDirectory())
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            audio.append(try #require(report["audio"] as? [String: Any]))
            let source = try #require(report["source"] as? [String: Any])
            // The head (one read of 256 KiB) and the last 4 KiB: not the whole file.
            #expect(source["requests"] as? Int == 2, "\(source)")
            #expect(source["bytesRead"] as? Int == (256 << 10) + 4096, "\(source)")
            #expect((source["size"] as? Int ?? 0) > 400_000, "\(source)")
        }
        for found in audio {
            #expect(found["trimmedFrameCount"] as? Int == frames)
            #expect(found["durationSource"] as? String == "header")
            #expect(abs((found["duration"] as? Double ?? 0) - Double(frames) / Double(rate)) < 1e-6)
        }
        #expect((audio[0]["tags"] as? [String: Any])?["kinds"] as? [String] == ["Vorbis comment"])
    }

    @Test func aFileCutInsideItsFirstPageIsAnError() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(try OggFixtures.bytes("opus-64k.opus").prefix(30)).write(to: URL(fileURLWithPath: folder + "/cut.opus"))
        for command in ["play", "info"] {
            let output = try await CommandRunner.run(
                [command, "cut.opus"] + (command == "play" ? ["--output", "null"] : []), in: folder)
            #expect(output.status != 0)
            #expect(output.stderr.contains("an Ogg stream that ends inside its first page"), "\(command): \(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(command): \(output.stderr)")
        }
    }
}

/// `play --start T` on Ogg from a file and from nginx: the output is the reference decode from
/// T on (the same length, within 2 LSB from the first sample), found by probing with a few
/// range requests.
@Suite(
    .enabled("run with scripts/test.sh (nginx); sox, oggenc and opusenc make the fixtures") {
        let made = await OggFixtures.made()
        return made && (try? TestNginx.port()) != nil
    })
struct OggSeekCommandTests {
    @Test(arguments: [
        ("vorbis-long.ogg", 44100, 23.5), ("opus-long.opus", 48000, 23.5), ("vorbis-long.ogg", 44100, 0.7),
        ("opus-long.opus", 48000, 39.2),
    ])
    func startPlaysTheReferenceFromThere(_ name: String, _ rate: Int, _ start: Double) async throws {
        let reference = try await OggFixtures.reference(name)
        let tail = Array(reference[(Int(start * Double(rate)) * 4)...])
        let url = try OggCommandTests.served(name)
        for input in [try OggFixtures.path(name), url] {
            let before = try TestNginx.requests(to: "/files/ogg-" + name).count
            let folder = try TestFiles.makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try await CommandRunner.run(["play", input, "--start", "\(start)", "--output", "wav:out.wav", "-q"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(pcm.count == tail.count, "\(input) from \(start) s: \(pcm.count / 4) vs \(tail.count / 4) frames")
            #expect(OggCommandTests.largestStep(pcm, tail) <= 2, "\(input) from \(start) s")
            if input == url {
                // The first request, then about log2 of the pages for the probes, at most.
                let requests = try TestNginx.requests(to: "/files/ogg-" + name).count - before
                #expect(requests >= 1 && requests <= 12, "\(requests) requests")
                print("seek \(name) to \(start) s over HTTP: \(requests) requests")
            }
        }
    }
}
