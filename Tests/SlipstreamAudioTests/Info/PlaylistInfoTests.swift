import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// `AudioInfo.read` of a playlist: the first entry that can be described is, in few reads, and
/// says which playlist it came from.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct PlaylistInfoTests {
    @Test func aPlaylistDescribesItsFirstEntryThatWorks() async throws {
        let song = try AudioFixtures.served("mp3-vbr-v0.mp3")
        let folder = try PlaylistPlayerTests.servedFolder([
            "radio.pls": "[playlist]\nFile1=missing.mp3\nFile2=\(song)\nTitle2=The song\n"
        ])
        let info = try await AudioInfo.read(from: folder + "radio.pls")
        #expect(info.source.url == song)
        #expect(info.source.playlist == AudioInfo.PlaylistOrigin(location: folder + "radio.pls", title: "The song", skippedEntries: 1))
        #expect(info.audio.format.codec == .mp3)
        // The entry's reads as for the entry alone; the playlist was read once.
        #expect(info.source.requests == 1)
        let path = String(folder.dropFirst("http://127.0.0.1:\(try TestNginx.port())".count))
        #expect(try TestNginx.requests(to: path + "radio.pls").count == 1)
    }

    @Test func aLocalPlaylistNestedOnceAndHLSRefused() async throws {
        let folder = PlaylistEntry.normalized(try TestFiles.makeTemporaryFolder())
        try "inner.m3u\n".write(toFile: folder + "/outer.m3u", atomically: true, encoding: .utf8)
        try "\(try AudioFixtures.path("mp3-mono64.mp3"))\n".write(toFile: folder + "/inner.m3u", atomically: true, encoding: .utf8)
        let info = try await AudioInfo.read(from: folder + "/outer.m3u")
        #expect(info.source.file == (try AudioFixtures.path("mp3-mono64.mp3")))
        #expect(info.source.playlist?.skippedEntries == 0)
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nlow.m3u8\n".write(toFile: folder + "/hls.m3u8", atomically: true, encoding: .utf8)
        await #expect {
            _ = try await AudioInfo.read(from: folder + "/hls.m3u8")
        } throws: { error in
            guard let error = error as? AudioInfoError else { return false }
            return error.code == .notAudio && error.message.contains("HLS") && error.path == folder + "/hls.m3u8"
        }
    }

    @Test func whenNoEntryCanBeDescribedTheErrorSaysHowManyWereTried() async throws {
        let folder = try PlaylistPlayerTests.servedFolder(["list.m3u": "a.mp3\nb.mp3\n"])
        do {
            _ = try await AudioInfo.read(from: folder + "list.m3u")
            Issue.record("a playlist of dead entries was described")
        } catch {
            #expect(error.code == .httpStatus)
            #expect(error.message.hasPrefix(folder + "list.m3u: a playlist; none of the 2 entries tried could be described (the last: "))
            #expect(error.url == folder + "list.m3u")
        }
    }

    /// A playlist over 1 MiB is refused after one more read, however it is served.
    @Test func aPlaylistOverTheCapIsRefused() async throws {
        let big = "#EXTM3U\n" + String(repeating: "http://a/x\n", count: Playlist.maximumSize / 11 + 1)
        let folder = try PlaylistPlayerTests.servedFolder(["big.m3u": big])
        await #expect {
            _ = try await AudioInfo.read(from: folder + "big.m3u")
        } throws: { error in
            (error as? AudioInfoError)?.message.contains("larger than 1 MiB") == true
        }
    }
}
