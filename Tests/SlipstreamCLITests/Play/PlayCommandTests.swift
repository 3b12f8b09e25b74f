import Foundation
import SlipstreamCore
import Testing
import TestSupport

/// `slipstream play` run as a user would: the built binary against nginx, local files and the
/// fault server, with the WAV and null outputs (no sound card needed).
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct PlayCommandTests {
    static func fixture(_ name: String) -> String { AudioFixtures.directory!.appendingPathComponent(name).path }

    /// `mpg123 --gapless -w` of fixture `name`, as PCM bytes (off the concurrency pool).
    static func mpg123(_ name: String) async throws -> [UInt8] {
        try await ReferenceDecoder.mpg123(fixture(name))
    }

    @Test func playsAURLIntoAWAVFileExactlyAsMpg123() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(
            ["play", try AudioFixtures.served("mp3-vbr-v0.mp3"), "--output", "wav:out.wav"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let reference = try await Self.mpg123("mp3-vbr-v0.mp3")
        #expect(try ReferenceDecoder.wavData(folder + "/out.wav").elementsEqual(reference))
    }

    @Test func writesAWAVStreamToAPipe() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let status = try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", "\"$0\" play \"$1\" --output wav:- -q | cat > out.wav", CommandRunner.binary, Self.fixture("mp3-mono64.mp3"),
            ]
            process.currentDirectoryURL = URL(fileURLWithPath: folder)
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/out.wav")))
        // Sizes unknown on a pipe: the stream's length is "until the end".
        #expect(bytes[4..<8].allSatisfy { $0 == 0xFF })
        #expect(bytes[40..<44].allSatisfy { $0 == 0xFF })
        let reference = try await Self.mpg123("mp3-mono64.mp3")
        #expect(bytes[44...].elementsEqual(reference))
    }

    /// Streams whose format changes (two files of different rates and channel counts one after
    /// the other, served by nginx), whole and with every 97th byte after the first 2000 garbled:
    /// they play into a WAV file (the second part resampled to the first's format), ALSA's null
    /// device (opened again for the new format) and the null output, and nothing is printed but
    /// the count of frames that could not be decoded: libmpg123, libfaad2 and ALSA say nothing
    /// on the terminal (libmpg123 printed "Unable to set up output format!" for every frame of
    /// the second part; mpg123 itself prints an "Illegal Audio-MPEG-Header" note for each
    /// garbled header). Garbled so, nearly every AAC frame has a wrong byte and most are
    /// refused by libfaad2: that stream stops with exit status 6.
    @Test(arguments: ["mp3-format-change.mp3", "mp3-format-change-station.mp3", "aac-format-change.aac"], [false, true])
    func aStreamWhoseFormatChangesPlaysOnAndPrintsNothing(_ name: String, garbled: Bool) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        var url = try AudioFixtures.served(name)
        if garbled {
            var bytes = try AudioFixtures.bytes(name)
            var random = SplitMix64(seed: 97)
            for i in stride(from: 2000, to: bytes.count, by: 97) { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            try Data(bytes).write(to: URL(fileURLWithPath: try TestNginx.filesFolder() + "/garbled-" + name))
            url = try TestNginx.url("garbled-" + name)
        }
        let undecodable = garbled && name.hasSuffix(".aac")
        for output in ["wav:out.wav", "alsa:null", "null"] {
            let run = try await CommandRunner.run(["play", url, "--output", output], in: folder)
            #expect(run.status == (undecodable ? 6 : 0), "\(output): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            if undecodable {
                #expect(lines.last?.contains("most of the stream could not be decoded") == true, "\(output): \(run.stderr)")
            } else {
                #expect(lines.allSatisfy { $0.contains("frames could not be decoded") }, "\(output): \(run.stderr)")
                #expect(garbled || run.stderr.isEmpty, "\(output): \(run.stderr)")
            }
            #expect(run.stdout.isEmpty, "\(output): \(run.stdout)")
        }
        if undecodable { return }
        // Both parts are in the file, at the first part's format: about 6 s (less where garbled
        // headers lost frames), and loud.
        let played = try ReferenceDecoder.wavData(folder + "/out.wav")
        #expect(abs(Double(played.count) / (44100 * 4) - 6) < (garbled ? 0.5 : 0.2), "\(played.count) bytes")
        let loud = played[(played.count / 2)...].withUnsafeBytes { $0.bindMemory(to: Int16.self).contains { abs(Int($0)) > 1000 } }
        #expect(loud)
    }

    @Test func startsAtTheTimeAsked() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(
            ["play", Self.fixture("mp3-cbr128.mp3"), "--start", "1.5", "--output", "wav:out.wav", "-q"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let reference = try await Self.mpg123("mp3-cbr128.mp3")
        let played = try ReferenceDecoder.wavData(folder + "/out.wav")
        #expect(played[...].elementsEqual(reference[(Int(1.5 * 44100) * 4)...]))
    }

    @Test func savesTheOriginalBytesWhilePlaying() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(
            ["play", try AudioFixtures.served("mp3-id3v23-picture.mp3"), "--output", "null", "--save", "copy.mp3"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("saved copy.mp3"))
        #expect(!output.stderr.contains("not the whole"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/copy.mp3")).elementsEqual(
                try AudioFixtures.bytes("mp3-id3v23-picture.mp3")))
    }

    @Test func notAudioIsExitStatus6() async throws {
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><body>no</body></html>".utf8))
        }
        defer { server.stop() }
        let output = try await CommandRunner.run(["play", server.url("/page"), "--output", "null"], in: NSTemporaryDirectory())
        #expect(output.status == 6)
        #expect(output.stderr.contains("HTML"), "\(output.stderr)")
    }

    @Test func httpErrorIsExitStatus4AndAMissingFile5() async throws {
        let missing = try await CommandRunner.run(
            ["play", try TestNginx.url("no-such.mp3"), "--output", "null"], in: NSTemporaryDirectory())
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("404"))
        let file = try await CommandRunner.run(["play", "/no/such/file.mp3", "--output", "null"], in: NSTemporaryDirectory())
        #expect(file.status == 5)
        #expect(file.stderr.contains("/no/such/file.mp3"))
    }

    @Test func aMissingALSADeviceIsOneClearErrorAndExitStatus8() async throws {
        let output = try await CommandRunner.run(
            ["play", Self.fixture("mp3-cbr128.mp3"), "--output", "alsa:nosuchdevice"], in: NSTemporaryDirectory())
        #expect(output.status == 8)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(output.stderr)")
        #expect(output.stderr.contains("nosuchdevice"))
        // The library states the facts; the command adds what to do about them.
        #expect(output.stderr.contains("--output chooses another"))
    }

    @Test func playsOnALSAsNullDevice() async throws {
        let output = try await CommandRunner.run(
            ["play", Self.fixture("mp3-mono64.mp3"), "--output", "alsa:null"], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test func usageErrorsAreExitStatus2() async throws {
        for arguments in [["play"], ["play", "a.mp3", "--volume", "300"], ["play", "a.mp3", "--output", "speaker"]] {
            let output = try await CommandRunner.run(arguments, in: NSTemporaryDirectory())
            #expect(output.status == 2, "\(arguments)")
        }
    }

    @Test func sigintStopsWithStatus130() async throws {
        var long = try AudioFixtures.served("mp3-cbr128.mp3")
        long = long.replacingOccurrences(of: "/files/", with: "/rate/") + "?rate=2k"
        let folder = try TestFiles.makeTemporaryFolder()
        let command = try CommandRunner.start(["play", long, "--output", "null", "--save", "saved.mp3"], in: folder)
        // The save file is made after the signals are trapped.
        command.kill(SIGINT, whenFileExists: folder + "/saved.mp3", timeoutSeconds: 60)
        let output = await command.wait()
        #expect(output.status == 130, "\(output.stderr)")
    }

    /// An hour of 128 kbit/s MP3 streamed as fast as possible through the null output with the
    /// default buffer: resident memory stays flat (sampled from /proc while it plays).
    @Test func anHourLongStreamPlaysInFlatMemory() async throws {
        let name = "play-hour.mp3"
        let path = try TestNginx.filesFolder() + "/" + name
        if !FileManager.default.fileExists(atPath: path) {
            let piece = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
            let seconds = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128-noxing.mp3" }?.duration)
            let copies = Int((3600 / seconds).rounded(.up))
            var whole = Data(capacity: piece.count * copies)
            for _ in 0..<copies { whole.append(contentsOf: piece) }
            try whole.write(to: URL(fileURLWithPath: path))
        }
        let command = try CommandRunner.start(["play", try TestNginx.url(name), "--output", "null", "-q"], in: NSTemporaryDirectory())
        // Sampled on a thread of its own: the concurrency pool may be busy with other tests.
        let pid = command.pid
        let samples = await withCheckedContinuation { continuation in
            Thread {
                var samples: [Int] = []
                while let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                    let kib = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
                {
                    samples.append(kib)
                    usleep(50_000)
                }
                continuation.resume(returning: samples)
            }.start()
        }
        let output = await command.wait()
        #expect(output.status == 0, "\(output.stderr)")
        try #require(samples.count >= 8, "too few samples: \(samples)")
        let early = samples[samples.count / 4..<samples.count / 2].max()!
        let late = samples[(samples.count * 3 / 4)...].max()!
        // Flat: the last quarter needs no more than 1 MiB above the second quarter.
        #expect(late <= early + 1024, "RSS KiB over time: \(samples)")
        print("hour-long stream: peak RSS \(samples.max()! / 1024) MiB over \(samples.count) samples")
    }

    /// A stream the recorder cannot record is said so with what the command line offers instead
    /// (the library's error states the fact only), and playback goes on.
    @Test func aRecordingRefusedForItsCodecPointsToSave() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(
            ["play", try AudioFixtures.path("wav-s16.wav"), "--record", folder + "/", "--output", "null"], in: folder)
        #expect(output.status == 5, "\(output.stderr)")
        #expect(
            output.stderr.contains("cannot record PCM") && output.stderr.contains("(--save keeps the whole stream)"), "\(output.stderr)")
    }
}
