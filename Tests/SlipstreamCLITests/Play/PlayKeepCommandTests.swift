import Foundation
import Testing
import TestSupport

/// `slipstream play URL --keep FILE` and `get URL --play`: the file plays while it downloads
/// over several connections from nginx (each connection limited by `/rate/`), and is the exact
/// file at the end; killed, the next run resumes it; complete, it plays with no request.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct PlayKeepCommandTests {
    /// Fixture `name` served under a name of this test's own (so that nginx's log of its
    /// requests is this test's alone): its path in the served folder, and its `/rate/` URL
    /// with each connection limited to `rate` bytes a second.
    static func served(_ name: String, as served: String, rate: String) throws -> (path: String, url: String, target: String) {
        let path = try TestNginx.filesFolder() + "/" + served
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: try AudioFixtures.path(name), toPath: path)
        let url = try TestNginx.url(served, location: "rate", query: "rate=\(rate)")
        return (path, url, "/rate/\(served)?rate=\(rate)")
    }

    static func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// 320 kbit/s is 40 000 bytes a second; each connection brings 24 000, eight together
    /// 192 000: played in real time, the audio never runs dry once it plays, and the file kept
    /// is the file served, renamed from its `.part`.
    @Test func playsWhileEveryConnectionIsSlowerThanTheStreamAndKeepsTheExactFile() async throws {
        let source = try Self.served("mp3-cbr320.mp3", as: "keep-underrun.mp3", rate: "24000")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["play", source.url, "--keep", "kept.mp3", "-n", "8", "--output", "null:paced", "--json"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let events = try Self.events(output.stdout)
        let states = events.filter { $0["event"] as? String == "state" }.compactMap { $0["state"] as? String }
        #expect(states.last == "done", "\(states)")
        let playing = try #require(events.firstIndex { $0["state"] as? String == "playing" })
        let buffering = events[playing...].filter { $0["event"] as? String == "buffering" && $0["status"] as? String == "started" }
        #expect(buffering.isEmpty, "an underrun: \(output.stdout)")
        #expect(await TestFiles.equalOffPool(folder + "/kept.mp3", source.path))
        #expect(!FileManager.default.fileExists(atPath: folder + "/kept.mp3.part"))
        #expect(output.stderr.contains("kept kept.mp3"), "\(output.stderr)")
        // More than one connection fetched it.
        #expect(try TestNginx.requests(to: source.target).count > 1)
    }

    /// A complete FILE plays again with no request, by `--keep` or by its name.
    @Test func aCompleteFilePlaysWithNoRequest() async throws {
        let source = try Self.served("mp3-cbr128.mp3", as: "keep-offline.mp3", rate: "1m")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try await CommandRunner.run(["play", source.url, "--keep", "kept.mp3", "--output", "null", "-q"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(await TestFiles.equalOffPool(folder + "/kept.mp3", source.path))
        let requests = try TestNginx.requests(to: source.target).count
        #expect(requests > 0)
        for arguments in [["play", source.url, "--keep", "kept.mp3"], ["play", "kept.mp3"]] {
            let again = try await CommandRunner.run(arguments + ["--output", "wav:out.wav", "--force", "-q"], in: folder)
            #expect(again.status == 0, "\(again.stderr)")
            let reference = try await ReferenceDecoder.mpg123(source.path)
            #expect(try ReferenceDecoder.wavData(folder + "/out.wav").elementsEqual(reference))
        }
        #expect(try TestNginx.requests(to: source.target).count == requests)
    }

    /// A file whose digest is not `--checksum`'s stays FILE.part, said as `get` says it (exit 7).
    @Test func aChecksumMismatchLeavesThePart() async throws {
        let source = try Self.served("mp3-cbr128.mp3", as: "keep-checksum.mp3", rate: "1m")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["play", source.url, "--keep", "kept.mp3", "--checksum", "sha256=" + String(repeating: "0", count: 64), "--output", "null"],
            in: folder)
        #expect(output.status == 7, "\(output.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/kept.mp3.part"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/kept.mp3"))
    }

    /// Killed with SIGKILL while it downloads, the next run resumes from the `.part` (and says
    /// so) and ends with the exact file.
    @Test func aKilledRunResumes() async throws {
        let source = try Self.served("mp4-aac-long-faststart.m4a", as: "keep-killed.m4a", rate: "32000")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let running = try CommandRunner.start(
            ["play", source.url, "--keep", "kept.m4a", "-n", "2", "--output", "null:paced", "-q"], in: folder)
        // A second and a half after the file is there: some of it is in, most is not.
        running.kill(SIGKILL, whenFileExists: folder + "/kept.m4a.part", afterMilliseconds: 1500)
        let killed = await running.wait()
        #expect(killed.signaled, "\(killed.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/kept.m4a.part"))
        let resumed = try await CommandRunner.run(["play", source.url, "--keep", "kept.m4a", "--output", "null"], in: folder)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(await TestFiles.equalOffPool(folder + "/kept.m4a", source.path))
        // It carried on from what the killed run kept (nginx's counts of bytes sent cannot say:
        // they include what a killed or dropped connection's socket held).
        #expect(resumed.stderr.contains("resuming kept.m4a"), "\(resumed.stderr)")
    }

    /// An MP4 whose index comes after its audio plays (the index is fetched first, then the
    /// audio) exactly as the file itself does, and is kept whole.
    @Test func anMP4WithItsIndexLastPlaysAndIsKept() async throws {
        let source = try Self.served("mp4-aac-moov-end.m4a", as: "keep-moov-end.m4a", rate: "16000")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let kept = try await CommandRunner.run(
            ["play", source.url, "--keep", "kept.m4a", "--output", "wav:kept.wav", "-q"], in: folder)
        #expect(kept.status == 0, "\(kept.stderr)")
        let direct = try await CommandRunner.run(["play", source.path, "--output", "wav:direct.wav", "-q"], in: folder)
        #expect(direct.status == 0, "\(direct.stderr)")
        let pcm = try ReferenceDecoder.wavData(folder + "/kept.wav")
        let reference = try ReferenceDecoder.wavData(folder + "/direct.wav")
        #expect(!pcm.isEmpty && pcm.elementsEqual(reference))
        #expect(await TestFiles.equalOffPool(folder + "/kept.m4a", source.path))
    }

    /// `--start` past the bytes fetched moves the download's window there: the audio from
    /// there is heard, and the file is still kept whole.
    @Test func aStartAheadPlaysFromThereAndKeepsTheWholeFile() async throws {
        let source = try Self.served("mp4-aac-long-faststart.m4a", as: "keep-start.m4a", rate: "64000")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["play", source.url, "--keep", "kept.m4a", "--start", "35", "--output", "wav:out.wav", "-q"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let frames = try ReferenceDecoder.wavData(folder + "/out.wav").count / 4
        // About five seconds of the forty.
        #expect(frames > 4 * 44100 && frames < 6 * 44100, "\(frames) frames")
        #expect(await TestFiles.equalOffPool(folder + "/kept.m4a", source.path))
    }

    /// `get URL --play` is the same transfer seen from `get`.
    @Test func getPlaysWhileItDownloads() async throws {
        let source = try Self.served("mp3-cbr128.mp3", as: "get-play.mp3", rate: "8000")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", source.url, "-o", "got.mp3", "--play=wav:out.wav"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(await TestFiles.equalOffPool(folder + "/got.mp3", source.path))
        let reference = try await ReferenceDecoder.mpg123(source.path)
        #expect(try ReferenceDecoder.wavData(folder + "/out.wav").elementsEqual(reference))
        // A device is written in order, never read back: nothing to play from.
        let device = try await CommandRunner.run(["get", source.url, "-o", "/dev/null", "--play=null"], in: folder)
        #expect(device.status == 2 && device.stderr.contains("--play need one"), "\(device.stderr)")
    }

    /// A live stream (no size, or an old SHOUTcast server's `ICY 200 OK`) and a server that
    /// serves no ranges cannot be kept whole: said in one line each, and they play as without
    /// `--keep`, leaving no file.
    @Test func aLiveStreamAndAServerWithoutRangesAreSaidAndPlay() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let song = try AudioFixtures.bytes("mp3-cbr128.mp3")
        // A station's answer: no length, the body ends when the connection closes.
        let station = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: song)
            response.untilClose = true
            return response
        }
        defer { station.stop() }
        // An old SHOUTcast server's answer: `ICY 200 OK`.
        let (shoutcast, _) = try PlayRadioCommandTests.station()
        defer { shoutcast.stop() }
        let whole = try TestHTTPServer { _ in TestHTTPServer.Response(status: 200, body: song) }
        defer { whole.stop() }
        for (url, reason) in [
            (station.url("/stream"), "it is a live stream"), (shoutcast.url("/stream"), "cannot be downloaded"),
            (whole.url("/song.mp3"), "serves no ranges"),
        ] {
            let output = try await CommandRunner.run(
                ["play", url, "--keep", "kept.mp3", "--output", "null", "--reconnect", "0"], in: folder)
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("--keep:") && lines[0].contains(reason), "\(output.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }

    /// A playlist cannot be kept whole: said in one line, and it plays as without `--keep`.
    @Test func aPlaylistIsSaidAndPlays() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entry = try AudioFixtures.served("mp3-cbr128.mp3")
        let list = try TestNginx.filesFolder() + "/keep-list.txt"
        try Data("#EXTM3U\n\(entry)\n".utf8).write(to: URL(fileURLWithPath: list))
        let output = try await CommandRunner.run(
            ["play", try TestNginx.url("keep-list.txt"), "--keep", "kept.mp3", "--output", "null"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("--keep:") && output.stderr.contains("is a playlist"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/kept.mp3"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/kept.mp3.part"))
    }

    /// An HLS stream plays while an HLS download keeps it: FILE is the segments joined, the
    /// audio is plain playback's, and a second run says FILE is kept already.
    @Test func anHLSStreamPlaysAndIsKeptJoined() async throws {
        let (folderPath, segments) = try await HLSFixtures.servedTransportStreamCopy(prefix: "keep-hls")
        let url = try TestNginx.url(folderPath + "/index.m3u8")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let kept = try await CommandRunner.run(["play", url, "--keep", "kept.ts", "--output", "wav:kept.wav"], in: folder)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("kept kept.ts"), "\(kept.stderr)")
        var joined = Data()
        for segment in segments {
            joined += try Data(contentsOf: URL(fileURLWithPath: try TestNginx.filesFolder() + "/" + folderPath + "/" + segment))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/kept.ts")) == joined)
        #expect(!FileManager.default.fileExists(atPath: folder + "/kept.ts.hls.part"))
        let plain = try await CommandRunner.run(["play", url, "--output", "wav:plain.wav", "-q"], in: folder)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try ReferenceDecoder.wavData(folder + "/kept.wav") == ReferenceDecoder.wavData(folder + "/plain.wav"))
        let again = try await CommandRunner.run(["play", url, "--keep", "kept.ts", "--output", "null"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("kept.ts is kept already"), "\(again.stderr)")
    }
}
