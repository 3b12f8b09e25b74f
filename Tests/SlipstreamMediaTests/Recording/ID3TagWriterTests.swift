import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamMedia

/// The tag a recorded MP3 file starts with, read back by the project's own tag reader and by
/// ffprobe and mpg123.
struct ID3TagWriterTests {
    @Test func writesTheExactBytesOfAnID3v23Tag() {
        let tag = ID3TagWriter.tag(title: "Song", artist: "Band")
        let frames: [UInt8] =
            Array("TIT2".utf8) + [0, 0, 0, 5, 0, 0, 0] + Array("Song".utf8)
            + Array("TPE1".utf8) + [0, 0, 0, 5, 0, 0, 0] + Array("Band".utf8)
        #expect(tag == Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, UInt8(frames.count)] + frames)
    }

    @Test(
        arguments: [
            (StreamTitle(title: "Band - Song"), "Song", "Band"),
            (StreamTitle(title: "Just a title"), "Just a title", nil),
            (StreamTitle(title: "Café Olé - Déjà Vu"), "Déjà Vu", "Café Olé"),
            (StreamTitle(title: "日本 - 歌 ✓"), "歌 ✓", "日本"),
            (StreamTitle(title: "Don't - Stop; me - now"), "Stop; me - now", "Don't"),
            (StreamTitle(title: " - Half"), " - Half", nil),
        ] as [(StreamTitle, String, String?)])
    func readsBackWithTheProjectsTagReader(_ title: StreamTitle, _ song: String, _ artist: String?) throws {
        let tag = try #require(ID3TagWriter.tag(for: title))
        let run = ParserRun(tag + Synth.mp3Frames(3), chunkSizes: { 7 })
        #expect(run.error == nil)
        #expect(run.final.tags.kinds == [.id3v23])
        #expect(run.final.tags.title == song.trimmingCharacters(in: .whitespaces))
        #expect(run.final.tags.artist == artist)
        // The audio starts right after the tag.
        #expect(run.packets.count == 3 && run.packets.first?.offset == Int64(tag.count))
    }

    @Test func anEmptyTitleGetsNoTag() {
        #expect(ID3TagWriter.tag(for: StreamTitle(title: "")) == nil)
    }

    /// ffprobe and mpg123 read both encodings (ISO-8859-1 and UTF-16) from a real MP3 file.
    @Test(.enabled(if: AudioFixtures.directory != nil, "needs the audio fixtures"))
    func readsBackWithFFprobeAndMpg123() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let audio = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
        for (index, (song, artist)) in [("Déjà Vu", "Café Olé"), ("歌 ✓", "日本")].enumerated() {
            let path = folder + "/tagged\(index).mp3"
            try Data(ID3TagWriter.tag(title: song, artist: artist) + audio).write(to: URL(fileURLWithPath: path))
            let probe = try await ExternalProgram.output([
                "ffprobe", "-v", "error", "-show_entries", "format_tags=title,artist", "-of", "default=nw=1", path,
            ])
            #expect(probe.text.contains("TAG:title=\(song)") && probe.text.contains("TAG:artist=\(artist)"), "\(probe)")
            let mpg123 = try await ExternalProgram.output(["mpg123", "-v", "-t", path])
            #expect(mpg123.text.contains("Title:   \(song)") && mpg123.text.contains("Artist:  \(artist)"), "\(mpg123)")
        }
    }
}
