import Foundation
import Testing
import TestSupport

/// `slipstream get --hls`: the ffmpeg-made streams of `HLSFixtures` (shared with the audio
/// tests) downloaded from the test nginx and joined; the file decodes, with
/// ffmpeg, to the same audio as ffmpeg's decode of the stream itself.
@Suite struct HLSGetCommandTests {
    /// Runs `get --hls URL -o out.EXT` in a new folder; the folder and the output's path.
    private static func get(_ url: String, ext: String, _ more: [String] = []) async throws -> (CommandRunner.Output, String, String) {
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(["get", "--hls", url, "-o", "out." + ext] + more, in: folder)
        return (output, folder, folder + "/out." + ext)
    }

    /// ffmpeg decodes `file` to the same PCM as it decodes the stream at `url`.
    private static func sameAudio(_ file: String, as url: String) async throws -> Bool {
        let joined = try await ReferenceDecoder.ffmpeg(file)
        let stream = try await ReferenceDecoder.ffmpeg(url)
        return !joined.isEmpty && joined == stream
    }

    /// Nothing is left in `folder` (a refused playlist left an empty part folder).
    private static func nothingLeft(in folder: String) throws -> Bool {
        try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty
    }

    /// Only the output is left: the part folder is gone.
    private static func onlyOutput(in folder: String, _ name: String) throws -> Bool {
        try FileManager.default.contentsOfDirectory(atPath: folder) == [name]
    }

    @Test func transportStreamSegmentsAreJoinedAsOneTSFile() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let url = try HLSFixtures.url("ts", "index.m3u8")
        let (output, folder, file) = try await Self.get(url, ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("4 segments joined"), "\(output.stderr)")
        let segments = try (0..<4).flatMap { try HLSFixtures.bytes(stream + "/s\($0).ts") }
        let joinedAsExpected = TestFiles.contents(of: file, equal: segments)
        #expect(joinedAsExpected)
        #expect(try await Self.sameAudio(file, as: url))
        #expect(try Self.onlyOutput(in: folder, "out.ts"))
    }

    /// A playlist behind a login whose segments another server holds: the login goes to the
    /// playlist's server only, never to the segments' (a CDN's) server.
    @Test func theLoginGoesToThePlaylistsServerOnly() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let servers = try await TestAccessServers.shared()
        let name = "hls-login-\(getpid())"
        let folder = servers.filesFolder + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var playlist = try String(contentsOfFile: stream + "/index.m3u8", encoding: .utf8)
        for index in 0..<4 {
            try FileManager.default.copyItem(atPath: stream + "/s\(index).ts", toPath: folder + "/s\(index).ts")
            playlist = playlist.replacingOccurrences(
                of: "\ns\(index).ts", with: "\n" + servers.url("\(name)/s\(index).ts", port: servers.otherPort))
        }
        try playlist.write(toFile: folder + "/index.m3u8", atomically: true, encoding: .utf8)
        let (output, outFolder, file) = try await Self.get(
            servers.url("\(name)/index.m3u8", location: "basic"), ext: "ts", ["--user", "test:secret", "--auth", "basic"])
        defer { try? FileManager.default.removeItem(atPath: outFolder) }
        #expect(output.status == 0, "\(output.stderr)")
        let segments = try (0..<4).flatMap { try HLSFixtures.bytes(stream + "/s\($0).ts") }
        #expect(TestFiles.contents(of: file, equal: segments))
        let playlistLines = try servers.logLines(forTargetsStartingWith: "/basic/\(name)/")
        #expect(!playlistLines.isEmpty && playlistLines.allSatisfy { $0.contains("\"Basic ") }, "\(playlistLines)")
        let segmentLines = try servers.logLines(forTargetsStartingWith: "/files/\(name)/")
        #expect(segmentLines.count >= 4)
        #expect(segmentLines.allSatisfy { $0.hasPrefix("\(servers.otherPort) ") && $0.contains(" \"-\" \"-\" ") }, "\(segmentLines)")
    }

    @Test func hooksRunWithTheJoinedFile() async throws {
        _ = try await offPool { try HLSFixtures.transportStream() }
        let (output, folder, _) = try await Self.get(
            try HLSFixtures.url("ts", "index.m3u8"), ext: "ts", ["--on-complete", "touch completed"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/completed"))
    }

    /// The init section, then the fragments, byte for byte; also when the key before the
    /// `EXT-X-MAP` covers the init section too (`aes-fmp4`): the plain stream's bytes.
    @Test(arguments: ["fmp4", "aes-fmp4"])
    func fragmentedMP4IsTheInitSectionThenTheFragments(_ name: String) async throws {
        let stream = try await offPool { try HLSFixtures.fragmentedMP4() }
        if name == "aes-fmp4" {
            let encrypted = try await offPool { try HLSFixtures.encryptedFragmentedMP4() }
            #expect(try String(contentsOfFile: encrypted + "/index.m3u8", encoding: .utf8).contains("METHOD=AES-128"))
        }
        let url = try HLSFixtures.url(name, "index.m3u8")
        let (output, folder, file) = try await Self.get(url, ext: "mp4")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        let fragments = try FileManager.default.contentsOfDirectory(atPath: stream).filter { $0.hasSuffix(".m4s") }.count
        let expected =
            try HLSFixtures.bytes(stream + "/init.mp4") + (0..<fragments).flatMap { try HLSFixtures.bytes(stream + "/f\($0).m4s") }
        let joinedAsExpected = TestFiles.contents(of: file, equal: expected)
        #expect(joinedAsExpected)
        #expect(try await Self.sameAudio(file, as: try HLSFixtures.url("fmp4", "index.m3u8")))
    }

    @Test func masterPlaylistGetsTheVariantThePlayerChooses() async throws {
        let stream = try await offPool { try HLSFixtures.master() }
        let url = try HLSFixtures.url("master", "master.m3u8")
        let (output, folder, file) = try await Self.get(url, ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        // Two audio-only variants: the higher bandwidth one, v1 (160 kb/s).
        #expect(output.stderr.contains("/v1/index.m3u8"), "\(output.stderr)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: stream + "/v1").filter { $0.hasSuffix(".ts") }.count
        let expected = try (0..<segments).flatMap { try HLSFixtures.bytes(stream + "/v1/s\($0).ts") }
        let joinedAsExpected = TestFiles.contents(of: file, equal: expected)
        #expect(joinedAsExpected)
        #expect(try await Self.sameAudio(file, as: try HLSFixtures.url("master", "v1/index.m3u8")))
    }

    /// `--variant` and `--max-bitrate` choose the variant as they do for play; a variant the
    /// playlist lacks is refused by its range, and the options need --hls.
    @Test(arguments: [["--variant", "0"], ["--max-bitrate", "100k"]])
    func theVariantIsChosenAsAsked(_ choice: [String]) async throws {
        let stream = try await offPool { try HLSFixtures.master() }
        let (output, folder, file) = try await Self.get(try HLSFixtures.url("master", "master.m3u8"), ext: "ts", choice)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("/v0/index.m3u8"), "\(output.stderr)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: stream + "/v0").filter { $0.hasSuffix(".ts") }.count
        let expected = try (0..<segments).flatMap { try HLSFixtures.bytes(stream + "/v0/s\($0).ts") }
        #expect(TestFiles.contents(of: file, equal: expected))
    }

    @Test func aVariantThePlaylistLacksIsRefused() async throws {
        _ = try await offPool { try HLSFixtures.master() }
        let url = try HLSFixtures.url("master", "master.m3u8")
        let (output, folder, _) = try await Self.get(url, ext: "ts", ["--variant", "5"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 6, "\(output.stderr)")
        #expect(output.stderr.contains("2 variants (0 to 1): 5 is not one of them"), "\(output.stderr)")
        #expect(try Self.nothingLeft(in: folder))
        let plain = try await CommandRunner.run(["get", url, "--variant", "1"], in: folder)
        #expect(plain.status == 2 && plain.stderr.contains("give --hls too"), "\(plain.stderr)")
    }

    @Test(arguments: [("iv", "index.m3u8"), ("sequence", "noiv.m3u8")])
    func aes128SegmentsAreDecrypted(iv: String, playlist: String) async throws {
        let stream = try await offPool { try HLSFixtures.encrypted(iv: iv == "iv" ? "000102030405060708090a0b0c0d0e0f" : nil) }
        let url = try HLSFixtures.url("aes-" + iv, playlist)
        let (output, folder, file) = try await Self.get(url, ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try String(contentsOfFile: stream + "/" + playlist, encoding: .utf8).contains("METHOD=AES-128"))
        // The audio of the stream as ffmpeg decrypts it, and of its plain twin.
        #expect(try await Self.sameAudio(file, as: url))
        #expect(try await Self.sameAudio(file, as: try HLSFixtures.url("aes-" + iv, "plain.m3u8")))
    }

    @Test func packedAudioIsOneADTSStreamWithOneLeadingTag() async throws {
        let stream = try await offPool { try HLSFixtures.packedAudio() }
        let url = try HLSFixtures.url("packed", "packed.m3u8")
        let (output, folder, file) = try await Self.get(url, ext: "aac")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        // The first segment's ID3 timestamp, then the ADTS frames the segments were cut from.
        let first = try HLSFixtures.bytes(stream + "/p0.aac")
        let whole = try HLSFixtures.bytes(stream + "/whole.aac")
        let tag = 10 + (6..<10).reduce(0) { $0 << 7 | Int(first[$1]) }
        let joinedAsExpected = TestFiles.contents(of: file, equal: Array(first.prefix(tag)) + whole)
        #expect(joinedAsExpected)
        let decodesAlike = try await ReferenceDecoder.ffmpeg(file) == ReferenceDecoder.ffmpeg(stream + "/whole.aac")
        #expect(decodesAlike)
    }

    @Test func byteRangesOfOneFileAreReadFromOneDownload() async throws {
        let stream = try await offPool { try HLSFixtures.byteRanges() }
        let url = try HLSFixtures.url("ranges", "index.m3u8")
        let (output, folder, file) = try await Self.get(url, ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 0, "\(output.stderr)")
        let joinedAsExpected = TestFiles.contents(of: file, equal: try HLSFixtures.bytes(stream + "/all.ts"))
        #expect(joinedAsExpected)
        // One file, fetched once (nginx logs each request of it).
        #expect(try TestNginx.requests(to: "/files/hls-\(getpid())-ranges/all.ts").count == 1)
    }

    @Test func withoutHLSTheFlagGetSavesThePlaylistItself() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", "-q", try HLSFixtures.url("ts", "index.m3u8")], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/index.m3u8", stream + "/index.m3u8"))
    }

    @Test func aSegmentThatIsMissingFailsNamingIt() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: stream + "/index.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: "s2.ts", with: "missing.ts").write(
            toFile: stream + "/missing.m3u8", atomically: true, encoding: .utf8)
        let (output, folder, _) = try await Self.get(try HLSFixtures.url("ts", "missing.m3u8"), ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 4, "\(output.stderr)")
        #expect(output.stderr.contains("segment 2 ("), "\(output.stderr)")
        #expect(output.stderr.contains("missing.ts"), "\(output.stderr)")
        #expect(output.stderr.contains("404"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.ts"))
    }

    @Test(arguments: ["media", "master"])
    func aPlaylistThatListsItselfIsRefused(kind: String) async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let text =
            kind == "media"
            ? "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ns0.ts\n#EXTINF:2,\nself-\(kind).m3u8\n#EXT-X-ENDLIST\n"
            : "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nself-\(kind).m3u8\n"
        try text.write(toFile: stream + "/self-\(kind).m3u8", atomically: true, encoding: .utf8)
        let (output, folder, _) = try await Self.get(try HLSFixtures.url("ts", "self-\(kind).m3u8"), ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 6, "\(output.stderr)")
        #expect(output.stderr.contains("lists itself"), "\(output.stderr)")
        #expect(try Self.nothingLeft(in: folder))
    }

    @Test func aLivePlaylistIsRefused() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let playlist = try String(contentsOfFile: stream + "/index.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "").replacingOccurrences(
            of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: ""
        ).write(toFile: stream + "/live.m3u8", atomically: true, encoding: .utf8)
        let (output, folder, _) = try await Self.get(try HLSFixtures.url("ts", "live.m3u8"), ext: "ts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(output.status == 6, "\(output.stderr)")
        #expect(output.stderr.contains("is a live HLS playlist"), "\(output.stderr)")
        #expect(output.stderr.contains("record a live one with slipstream play --record DIR"), "\(output.stderr)")
        #expect(try Self.nothingLeft(in: folder))
    }

    /// A part folder left by another playlist (its record differs) is emptied, not mixed in:
    /// a file there under a segment's name is fetched again.
    @Test func partsOfAnotherPlaylistAreNotMixedIn() async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/out.ts.hls.part", withIntermediateDirectories: false)
        try "http://127.0.0.1/other.m3u8\n".write(toFile: folder + "/out.ts.hls.part/plan", atomically: true, encoding: .utf8)
        try Data(repeating: 0x47, count: 1000).write(to: URL(fileURLWithPath: folder + "/out.ts.hls.part/0"))
        let output = try await CommandRunner.run(
            ["get", "--hls", try HLSFixtures.url("ts", "index.m3u8"), "-o", "out.ts"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("starting over"), "\(output.stderr)")
        let segments = try (0..<4).flatMap { try HLSFixtures.bytes(stream + "/s\($0).ts") }
        let joinedAsExpected = TestFiles.contents(of: folder + "/out.ts", equal: segments)
        #expect(joinedAsExpected)
    }

    /// Stopped (Ctrl-C, or kill -9) once two segments are done, the same command fetches only
    /// the others: each finished segment is requested once in all. The segments come through
    /// /rate/ (20 KB/s a connection, one segment at a time) so that the stop finds some left.
    @Test(arguments: [SIGINT, SIGKILL])
    func anInterruptedDownloadResumesWithoutFetchingFinishedSegmentsAgain(signal: Int32) async throws {
        let stream = try await offPool { try HLSFixtures.transportStream() }
        let name = "slow-\(signal).m3u8"
        let playlist = try String(contentsOfFile: stream + "/index.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: ".ts\n", with: ".ts?rate=20k&run=\(signal)\n").write(
            toFile: stream + "/" + name, atomically: true, encoding: .utf8)
        // The playlist through /rate/ too, so that its segments resolve there.
        let url = try TestNginx.url("hls-\(getpid())-ts/\(name)", location: "rate")
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let command = ["get", "--hls", url, "-o", "out.ts", "-n", "1"]
        let running = try CommandRunner.start(command, in: folder)
        running.kill(signal, whenFileExists: folder + "/out.ts.hls.part/1", afterMilliseconds: 100)
        let stopped = await running.wait()
        #expect(stopped.status == (signal == SIGINT ? 130 : SIGKILL), "\(stopped.stderr)")
        if signal == SIGINT { #expect(stopped.stderr.contains("run the same command again to resume"), "\(stopped.stderr)") }
        let kept = (0..<4).filter { FileManager.default.fileExists(atPath: folder + "/out.ts.hls.part/\($0)") }
        #expect(kept.count >= 2 && kept.count < 4, "\(kept)")

        let rerun = try await CommandRunner.run(command, in: folder)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stderr.contains("\(kept.count) of 4 files already here"), "\(rerun.stderr)")
        let segments = try (0..<4).flatMap { try HLSFixtures.bytes(stream + "/s\($0).ts") }
        let joinedAsExpected = TestFiles.contents(of: folder + "/out.ts", equal: segments)
        #expect(joinedAsExpected)
        for index in kept {
            let target = "/rate/hls-\(getpid())-ts/s\(index).ts?rate=20k&run=\(signal)"
            #expect(try TestNginx.requests(to: target).count == 1, "s\(index).ts")
        }
    }
}
