import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Playlists through the whole player: served by nginx (which gives them no playlist
/// Content-Type: their bytes decide), by the in-test server (types, stalls, drops), and as
/// local files; dead entries skipped, with their events, and the entry that plays decoded
/// exactly as mpg123 decodes it.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct PlaylistPlayerTests {
    /// A folder of its own under nginx's, with `files` written into it; its URL (ending in `/`).
    static func servedFolder(_ files: [String: String]) throws -> String {
        let name = "playlists-\(UInt32.random(in: 0...UInt32.max))"
        let folder = try TestNginx.filesFolder() + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8) }
        return try TestNginx.url(name + "/")
    }

    static func skipped(_ run: PlayerRun) -> [(url: String, error: AudioStreamerError)] {
        run.events.compactMap { if case .playlistEntrySkipped(let url, let error) = $0 { (url, error) } else { nil } }
    }

    static func started(_ run: PlayerRun) -> [(url: String, title: String?)] {
        run.events.compactMap { if case .playlistEntryStarted(let url, let title) = $0 { (url, title) } else { nil } }
    }

    /// Plays `url` into a WAV file; the run and the PCM played.
    static func play(_ url: String, configure: (inout AudioStreamerConfiguration) -> Void = { _ in }) async throws -> (PlayerRun, [UInt8]) {
        let wav = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let run = try await PlayerRun.play(url) {
            $0.output = { WAVFileOutput(path: wav) }
            configure(&$0)
        }
        return (run, run.finalState == .done ? try ReferenceDecoder.wavData(wav) : [])
    }

    @Test func aPLSWhoseFirstEntriesAreDeadPlaysItsRelativeOne() async throws {
        let song = try AudioFixtures.served("mp3-vbr-v0.mp3")
        let missing = try TestNginx.url("no-such-file.mp3")
        let folder = try Self.servedFolder([
            "radio.pls": """
            [playlist]
            NumberOfEntries=3
            File1=\(missing)
            Title1=Gone
            File2=http://127.0.0.1:1/refused.mp3
            file4=../audio-mp3-vbr-v0.mp3
            TITLE4=Artist - Song
            """
        ])
        let (run, played) = try await Self.play(folder + "radio.pls")
        #expect(run.finalState == .done, "\(run.events)")
        let skipped = Self.skipped(run)
        #expect(skipped.map(\.url) == [missing, "http://127.0.0.1:1/refused.mp3"])
        #expect(skipped.map(\.error.code) == [.httpStatus, .network])
        #expect(skipped.first?.error.status == 404)
        #expect(Self.started(run).map(\.url) == [missing, "http://127.0.0.1:1/refused.mp3", song])
        #expect(Self.started(run).last?.title == "Artist - Song")
        #expect(run.reconnects == 0)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-vbr-v0.mp3"))
        #expect(played.count == reference.count)
        #expect(played.elementsEqual(reference))
    }

    @Test func anExtendedM3UGivesTheTitle() async throws {
        let song = try AudioFixtures.served("mp3-cbr128.mp3")
        let folder = try Self.servedFolder(["list.m3u": "#EXTM3U\n#EXTINF:3,Ünïcode – Title\n\(song)\n"])
        let (run, played) = try await Self.play(folder + "list.m3u")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.started(run).map(\.title) == ["Ünïcode – Title"])
        #expect(played.elementsEqual(try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-cbr128.mp3"))))
    }

    @Test func anXSPFPlaysItsFirstLocationThatWorks() async throws {
        let song = try AudioFixtures.served("mp3-mono64.mp3")
        let folder = try Self.servedFolder([
            "list.xspf": """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/">
              <trackList>
                <track><title>Mono</title><location>missing.mp3</location><location>\(song)</location></track>
              </trackList>
            </playlist>
            """
        ])
        let (run, played) = try await Self.play(folder + "list.xspf")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.skipped(run).map(\.url) == [folder + "missing.mp3"])
        #expect(Self.started(run).map(\.title) == ["Mono", "Mono"])
        #expect(played.elementsEqual(try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-mono64.mp3"))))
    }

    @Test func aPlaylistThatListsAPlaylistIsFollowed() async throws {
        let song = try AudioFixtures.served("mp3-cbr128.mp3")
        let folder = try Self.servedFolder([
            "outer.m3u": "#EXTM3U\n#EXTINF:-1,Inner list\ninner.pls\n",
            "inner.pls": "[playlist]\nFile1=\(song)\nTitle1=The song\n",
        ])
        let (run, _) = try await Self.play(folder + "outer.m3u")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.started(run).map(\.url) == [folder + "inner.pls", song])
        #expect(Self.started(run).map(\.title) == ["Inner list", "The song"])
        #expect(Self.skipped(run).isEmpty)
    }

    @Test func playlistsThatListEachOtherEndInAClearError() async throws {
        let folder = try Self.servedFolder(["a.m3u": "b.m3u\n", "b.m3u": "http://127.0.0.1:1/x.mp3\na.m3u\n"])
        let (run, _) = try await Self.play(folder + "a.m3u")
        let error = try #require(run.error, "\(run.events)")
        #expect(Self.skipped(run).map(\.url) == ["http://127.0.0.1:1/x.mp3", folder + "a.m3u"])
        #expect(error.message.contains("none of the 3 entries tried could be played"), "\(error.message)")
        #expect(error.message.contains("list each other"), "\(error.message)")
        #expect(error.url == folder + "a.m3u")
    }

    @Test func anHLSPlaylistIsPlayedAsOneStreamNotAsAList() async throws {
        let folder = try Self.servedFolder([
            "index.m3u8": "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nseg0.ts\n#EXT-X-ENDLIST\n"
        ])
        let (run, _) = try await Self.play(folder + "index.m3u8")
        let error = try #require(run.error)
        #expect(error.code == .httpStatus)
        #expect(error.message.contains("HLS segment \(folder)seg0.ts"), "\(error.message)")
        #expect(Self.skipped(run).isEmpty && Self.started(run).isEmpty)
    }

    @Test func aLocalM3UNamesFilesFromItsFolder() async throws {
        // Named as the player names them: without doubled slashes.
        let folder = PlaylistEntry.normalized(try TestFiles.makeTemporaryFolder())
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PlayerFiles.fixture("mp3-cbr128.mp3"), toPath: folder + "/music/song one.mp3")
        try FileManager.default.createDirectory(atPath: folder + "/lists", withIntermediateDirectories: true)
        try "missing.mp3\r\n../music/song one.mp3\r\n".write(toFile: folder + "/lists/list.m3u", atomically: true, encoding: .utf8)
        let (run, played) = try await Self.play(folder + "/lists/list.m3u")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.skipped(run).map(\.url) == [folder + "/lists/missing.mp3"])
        #expect(Self.skipped(run).first?.error.code == .file)
        #expect(Self.started(run).last?.url == folder + "/music/song one.mp3")
        #expect(played.elementsEqual(try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-cbr128.mp3"))))
    }

    /// Relative entries resolve against the URL that answered, after redirects (nginx's
    /// /moved/ sends to /files/).
    @Test func relativeEntriesResolveAgainstTheFinalURL() async throws {
        let folder = try Self.servedFolder(["list.m3u": "../audio-mp3-mono64.mp3\n"])
        _ = try AudioFixtures.served("mp3-mono64.mp3")
        let moved = folder.replacingOccurrences(of: "/files/", with: "/moved/")
        let (run, _) = try await Self.play(moved + "list.m3u")
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.started(run).map(\.url) == [try TestNginx.url("audio-mp3-mono64.mp3")])
    }

    /// A plain M3U of relative paths, told by its Content-Type; an entry that is not audio and
    /// one that sends nothing within the inactivity timeout are skipped.
    @Test func deadEntriesOfEveryKindAreSkipped() async throws {
        let song = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try TestHTTPServer { request in
            switch request.path {
            case "/list":
                return .init(status: 200, headers: [("Content-Type", "audio/x-mpegurl")], body: Array("page\nsilent\nsong\n".utf8))
            case "/page": return .init(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html>no</html>".utf8))
            case "/silent":
                var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: song)
                response.stallAfter = 0
                return response
            default: return .file(song, for: request)
            }
        }
        defer { server.stop() }
        // Long enough that the song's first bytes come within it on a loaded machine (0.5 s once
        // timed the song out too, in a CI run beside a benchmark), short enough for a quick test.
        let (run, played) = try await Self.play(server.url("/list")) { $0.inactivityTimeout = .seconds(2) }
        #expect(run.finalState == .done, "\(run.events)")
        #expect(Self.skipped(run).map(\.url) == [server.url("/page"), server.url("/silent")])
        #expect(Self.skipped(run).map(\.error.code) == [.unsupportedFormat, .timedOut])
        #expect(Self.skipped(run).last?.error.message.contains(server.url("/silent")) == true)
        #expect(played.elementsEqual(try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-cbr128.mp3"))))
    }

    /// Once an entry gave audio its failures are the usual ones: a reconnect, then the error
    /// (a 404 is not retried); the next entry is not tried.
    @Test func afterAudioTheUsualRulesApply() async throws {
        let song = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try TestHTTPServer { request in
            switch request.path {
            case "/list": return .init(status: 200, body: Array("#EXTM3U\n/first.mp3\n/second.mp3\n".utf8))
            case "/first.mp3" where request.range == nil:
                var response = TestHTTPServer.Response.file(song, for: request)
                response.closeAfter = song.count / 2
                return response
            case "/second.mp3": return .file(song, for: request)
            default: return .init(status: 404)
            }
        }
        defer { server.stop() }
        let (run, _) = try await Self.play(server.url("/list")) { $0.reconnectDelay = .milliseconds(10) }
        #expect(run.error?.code == .httpStatus, "\(run.events)")
        #expect(run.reconnects == 1)
        #expect(Self.skipped(run).isEmpty)
        #expect(Self.started(run).map(\.url) == [server.url("/first.mp3")])
    }

    /// A playlist whose every entry is dead: one error saying how many were tried, with the
    /// last entry's code.
    @Test func whenEveryEntryFailsTheErrorSaysHowManyWereTried() async throws {
        let folder = try Self.servedFolder(["list.pls": "[playlist]\nFile1=a.mp3\nFile2=rtsp://h/x\nFile3=b.mp3\n"])
        let (run, _) = try await Self.play(folder + "list.pls")
        let error = try #require(run.error)
        #expect(error.code == .httpStatus)
        #expect(error.message.hasPrefix(folder + "list.pls: a playlist; none of the 3 entries tried could be played (the last: "))
        #expect(Self.skipped(run).map(\.error.code) == [.httpStatus, .unsupportedFormat, .httpStatus])
    }
}
