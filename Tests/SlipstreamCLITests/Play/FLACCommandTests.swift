import Foundation
import Testing
import TestSupport

/// `slipstream play` and `info` on FLAC, from nginx and from a file: bit-exact with `flac -d`,
/// seeking exactly to the sample, the exact length from STREAMINFO, and a big cover picture
/// jumped over rather than downloaded.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct FLACCommandTests {
    /// `flac -d` of `path` as 16-bit PCM (the top 16 bits of wider samples, as the player
    /// outputs them), off the concurrency pool.
    static func reference(_ path: String) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await ExternalProgram.run(["flac", "-d", "-s", "-f", "-o", folder + "/out.wav", path])
        return try await ReferenceDecoder.sox(folder + "/out.wav")
    }

    @Test(arguments: ["flac-16-seektable.flac", "flac-24-mono.flac"], [nil, 1.5])
    func playsAURLAndAFileBitExactFromTheStartOrASeek(name: String, start: Double?) async throws {
        let path = try AudioFixtures.path(name)
        let reference = try await Self.reference(path)
        let rate = name.contains("mono") ? 48000 : 44100, frameBytes = name.contains("mono") ? 2 : 4
        let expected = reference[(Int((start ?? 0) * Double(rate)) * frameBytes)...]
        for source in [try AudioFixtures.served(name), path] {
            let folder = try TestFiles.makeTemporaryFolder()
            let arguments = ["play", source, "--output", "wav:out.wav", "-q"] + (start.map { ["--start", "\($0)"] } ?? [])
            let output = try await CommandRunner.run(arguments, in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let played = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(played.count == expected.count, "\(source)")
            #expect(played[...].elementsEqual(expected), "\(source)")
        }
    }

    /// A FLAC without a SEEKTABLE (40 s, 431 frames), from a server that answers ranges: the
    /// frame before `--start T` is found by probing the frame headers (`SeekSearch`) in about
    /// log2 of the frames' count of requests at most, and the output is `flac -d`'s from T on,
    /// exactly (its first sample too). From a file, the same.
    @Test(arguments: [0.5, 13.37, 27.9, 39.5])
    func aSeekWithoutASeekTableIsFoundByProbing(start: Double) async throws {
        let name = "flac-16-long-noseektable.flac"
        let path = try AudioFixtures.path(name)
        let reference = try await Self.reference(path)
        let expected = reference[(Int(start * 44100) * 4)...]
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        for source in [server.url("/long.flac"), path] {
            let folder = try TestFiles.makeTemporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try await CommandRunner.run(["play", source, "--start", "\(start)", "--output", "wav:out.wav", "-q"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let played = try ReferenceDecoder.wavData(folder + "/out.wav")
            #expect(played.count == expected.count, "\(source) from \(start) s")
            #expect(played.prefix(4).elementsEqual(expected.prefix(4)), "\(source) from \(start) s: the first sample")
            #expect(played[...].elementsEqual(expected), "\(source) from \(start) s")
        }
        // The first request, then the probes (none when the first connection already holds the
        // start): log2(431 frames) is 8.8.
        let requests = server.requests.count
        #expect(requests >= 1 && requests <= 12, "\(requests) requests")
        print("seek \(name) to \(start) s over HTTP: \(requests) requests")
    }

    @Test func infoFromAURLAndAFileAgree() async throws {
        let name = "flac-id3v2.flac"
        var reports: [[String: Any]] = []
        for source in [try AudioFixtures.served(name), try AudioFixtures.path(name)] {
            let output = try await CommandRunner.run(["info", "--json", source], in: NSTemporaryDirectory())
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            reports.append(try #require(report["audio"] as? [String: Any]))
        }
        let data = try reports.map { try JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) }
        #expect(data[0] == data[1])
        let audio = reports[0]
        #expect(audio["duration"] as? Double == 3.0)
        #expect(audio["trimmedFrameCount"] as? Int == 132_300)
        let format = try #require(audio["format"] as? [String: Any])
        #expect(format["codecDescription"] as? String == "FLAC 16-bit")
        let tags = try #require(audio["tags"] as? [String: Any])
        #expect(tags["title"] as? String == "Flac Title" && tags["album"] as? String == "Flac Album")
        #expect(tags["kinds"] as? [String] == ["ID3v2.2", "Vorbis comment"])

        let text = try await CommandRunner.run(["info", try AudioFixtures.path(name)], in: NSTemporaryDirectory())
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Format:") && $0.hasSuffix("FLAC 16-bit, 44100 Hz, stereo") })
        #expect(lines.contains { $0.hasPrefix("Duration:") && $0.hasSuffix("0:03 (3.000 s, from the header)") })
    }

    /// A FLAC of about 12 MB with a 3 MB cover picture: `info` reads a few hundred KiB of it,
    /// and `play --start` fetches from the SEEKTABLE point before the target.
    /// Without a SEEKTABLE the frame is found by probing: exact all the same.
    @Test(arguments: [true, false])
    func aBigFileIsDescribedFromItsHeadAndSeekedExactly(seekTable: Bool) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let file = folder + "/big.flac"
        try await offPool {
            try ExternalProgram.runBlocking([
                "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "nullsrc=s=1024x1024,geq=random(1)*255:128:128",
                "-frames:v", "1", folder + "/cover.png",
            ])
            try ExternalProgram.runBlocking([
                "sox", "-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", folder + "/noise.wav", "synth", "120", "whitenoise", "gain",
                "-6",
            ])
            try ExternalProgram.runBlocking(
                ["flac", "-s", "-f", "--picture=" + folder + "/cover.png"] + (seekTable ? [] : ["--no-seektable"])
                    + [folder + "/noise.wav", "-o", file])
        }
        let content = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(content.count > 10 << 20)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let output = try await CommandRunner.run(["info", "--json", server.url("/big.flac")], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let audio = try #require(report["audio"] as? [String: Any])
        #expect(audio["duration"] as? Double == 120)
        #expect(server.bodyBytesSent < 768 << 10, "sent \(server.bodyBytesSent) of \(content.count) bytes")

        let played = try await CommandRunner.run(
            ["play", server.url("/big.flac"), "--start", "100", "--output", "wav:out.wav", "-q"], in: folder)
        #expect(played.status == 0, "\(played.stderr)")
        let pcm = try ReferenceDecoder.wavData(folder + "/out.wav")
        #expect(pcm.count == 20 * 44100 * 4)
        let reference = try await Self.reference(file)
        #expect(pcm[...].elementsEqual(reference[(100 * 44100 * 4)...]))
        // The seek went straight to the SEEKTABLE point before 100 s (one every 10 s) rather than
        // reading on: into the last quarter of the file (the first 3 MB are the picture).
        // Without one it probed a few times, the last of them there too.
        let seekStart = try #require(server.requests.last?.range?.start)
        #expect(seekStart > Int64(content.count) * 3 / 4 && seekStart < Int64(content.count) * 9 / 10)
        if !seekTable { print("seek big.flac to 100 s without a SEEKTABLE: \(server.requests.count - 1) requests to play") }
    }
}
