import Foundation
import Testing
import TestSupport

/// `slipstream play` and `slipstream info` of playlists, run as a user would.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct PlaylistCommandTests {
    /// A folder of its own under nginx's with `files`; its URL, ending in `/`.
    static func servedFolder(_ files: [String: String]) throws -> String {
        let name = "playlists-cli-\(UInt32.random(in: 0...UInt32.max))"
        let folder = try TestNginx.filesFolder() + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8) }
        return try TestNginx.url(name + "/")
    }

    @Test func aDeadEntryIsOneLineAndTheNextPlays() async throws {
        let song = try AudioFixtures.served("mp3-vbr-v0.mp3")
        let list = try Self.servedFolder(["radio.pls": "[playlist]\nFile1=http://127.0.0.1:1/dead.mp3\nFile2=\(song)\n"]) + "radio.pls"
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(["play", list, "--output", "wav:out.wav"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(output.stderr)")
        #expect(lines.first?.hasPrefix("slipstream: skipped a playlist entry: http://127.0.0.1:1/dead.mp3: ") == true)
        let reference = try await ReferenceDecoder.mpg123(try AudioFixtures.path("mp3-vbr-v0.mp3"))
        #expect(try ReferenceDecoder.wavData(folder + "/out.wav").elementsEqual(reference))
        let quiet = try await CommandRunner.run(["play", list, "--output", "null", "-q"], in: folder)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func aPlaylistOfDeadEntriesExitsWithTheLastOnesStatus() async throws {
        let list = try Self.servedFolder(["list.m3u": "#EXTM3U\nhttp://127.0.0.1:1/a.mp3\nmissing.mp3\n"]) + "list.m3u"
        let output = try await CommandRunner.run(["play", list, "--output", "null"], in: NSTemporaryDirectory())
        #expect(output.status == 4, "\(output.stderr)")
        let lines = output.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(output.stderr)")
        #expect(lines.last?.hasPrefix("slipstream: \(list): a playlist; none of the 2 entries tried could be played") == true)
    }

    @Test func anHLSPlaylistIsExitStatus6NamingHLS() async throws {
        let list = try Self.servedFolder(["live.m3u8": "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:1\n#EXTINF:6,\na.ts\n"]) + "live.m3u8"
        for command in ["play", "info"] {
            let output = try await CommandRunner.run(
                [command, list] + (command == "play" ? ["--output", "null"] : []), in: NSTemporaryDirectory())
            #expect(output.status == 6, "\(command): \(output.stderr)")
            #expect(output.stderr.contains("HLS"), "\(output.stderr)")
        }
    }

    @Test func infoSaysTheEntryCameFromAPlaylist() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        try FileManager.default.copyItem(atPath: try AudioFixtures.path("mp3-cbr128.mp3"), toPath: folder + "/song.mp3")
        try "#EXTM3U\n#EXTINF:3,Gone\ngone.mp3\n#EXTINF:3,Artist - Song\nsong.mp3\n".write(
            toFile: folder + "/list.m3u", atomically: true, encoding: .utf8)
        let output = try await CommandRunner.run(["info", "list.m3u"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Playlist:    list.m3u (1 entry before it skipped)\n"), "\(output.stdout)")
        #expect(output.stdout.contains("Entry title: Artist - Song\n"))
        #expect(output.stdout.contains("File:        song.mp3\n"))
        let json = try await CommandRunner.run(["info", "list.m3u", "--json"], in: folder)
        #expect(json.stdout.contains("\"skippedEntries\" : 1"), "\(json.stdout)")
    }
}
