import Testing
import MediaTestSupport
@testable import SlipstreamMedia

/// Playlists meant to break the parsers: they must not crash, hang or grow, and must end in
/// entries or a clear error.
@Suite struct PlaylistHostileInputTests {
    static let formats: [PlaylistFormat] = [.m3u, .pls, .xspf]

    @Test(arguments: formats)
    func randomBytesGiveEntriesOrAnError(_ format: PlaylistFormat) {
        var random = SeededRandom(state: 42)
        for count in [0, 1, 17, 4096, 300_000] {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            if let playlist = try? Playlist.read(bytes, format: format) {
                #expect(playlist.entries.count <= Playlist.maximumEntries)
                #expect(playlist.entries.allSatisfy { !$0.target.isEmpty && !$0.target.utf8.contains(where: PlaylistText.isControl) })
            }
        }
    }

    @Test func aBodyOverTheCapIsRefused() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: Playlist.maximumSize + 1)
        for format in Self.formats {
            #expect(throws: Playlist.tooLarge) { try Playlist.read(bytes, format: format) }
        }
    }

    @Test func hugeLinesAreIgnoredAndDoNotLendTheirTitle() throws {
        let huge = "http://a/" + String(repeating: "x", count: Playlist.maximumLineLength)
        let m3u = "#EXTINF:1,Lost title\n\(huge)\nhttp://a/ok\n"
        #expect(try Playlist.read(Array(m3u.utf8), format: .m3u).entries == [PlaylistEntry("http://a/ok")])
        let pls = "[playlist]\nFile1=\(huge)\nFile2=http://a/ok\n"
        #expect(try Playlist.read(Array(pls.utf8), format: .pls).entries == [PlaylistEntry("http://a/ok")])
        let xspf =
            "<playlist><trackList><track><location>\(huge)</location></track><track><location>http://a/ok</location></track></trackList></playlist>"
        #expect(try Playlist.read(Array(xspf.utf8), format: .xspf).entries == [PlaylistEntry("http://a/ok")])
    }

    @Test func binaryJunkLinesAreNotEntries() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0xFF, 0x0A] + Array("http://a/1\n".utf8) + [0x1B, 0x5B, 0x41, 0x0A]
        #expect(try Playlist.read(bytes, format: .m3u).entries == [PlaylistEntry("http://a/1")])
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func lineEndsAndAByteOrderMark(_ end: String) throws {
        let text = ["#EXTM3U", "#EXTINF:1,One", "http://a/1", "", "http://a/2"].joined(separator: end)
        let entries = try Playlist.read([0xEF, 0xBB, 0xBF] + Array(text.utf8), format: .m3u).entries
        #expect(entries == [PlaylistEntry("http://a/1", title: "One"), PlaylistEntry("http://a/2")])
        let pls = ["[playlist]", "File1=http://a/1", "Title1=One"].joined(separator: end)
        #expect(
            try Playlist.read([0xEF, 0xBB, 0xBF] + Array(pls.utf8), format: .pls).entries == [PlaylistEntry("http://a/1", title: "One")])
    }

    @Test func thousandsOfEntriesAreCapped() throws {
        let m3u = (0..<20_000).map { "http://a/\($0)" }.joined(separator: "\n")
        let entries = try Playlist.read(Array(m3u.utf8), format: .m3u).entries
        #expect(entries.count == Playlist.maximumEntries)
        #expect(entries.last == PlaylistEntry("http://a/\(Playlist.maximumEntries - 1)"))
        let pls = "[playlist]\n" + (0..<20_000).reversed().map { "File\($0)=http://a/\($0)" }.joined(separator: "\n")
        let plsEntries = try Playlist.read(Array(pls.utf8), format: .pls).entries
        #expect(plsEntries.count == Playlist.maximumEntries)
        #expect(plsEntries.first == PlaylistEntry("http://a/0"))
        let xspf = "<playlist><trackList>" + String(repeating: "<track><location>http://a/x</location></track>", count: 20_000)
        #expect(try Playlist.read(Array(xspf.utf8), format: .xspf).entries.count == Playlist.maximumEntries)
    }

    /// An HLS tag after the cap still makes it HLS.
    @Test func hlsAfterTheCapIsStillHLS() {
        let m3u = (0..<2000).map { "http://a/\($0)" }.joined(separator: "\n") + "\n#EXT-X-ENDLIST\n"
        #expect(throws: PlaylistError.self) { try Playlist.read(Array(m3u.utf8), format: .m3u) }
    }

    @Test func deepAndUnterminatedXMLTakesLinearTime() {
        let deep = String(repeating: "<a>", count: 200_000) + "<playlist><trackList><track><location>http://x</location></track>"
        #expect(throws: PlaylistError.self) { try Playlist.read(Array(deep.utf8), format: .xspf) }
        for broken in ["<!--", "<![CDATA[", "<?xml", "<!DOCTYPE [", "<playlist attr=\"", "<<<<<<", "&#xFFFFFFFF;&#0;&"] {
            let text = "<playlist><trackList><track><location>" + String(repeating: broken, count: 50_000)
            #expect(throws: PlaylistError.self) { try Playlist.read(Array(text.utf8.prefix(Playlist.maximumSize)), format: .xspf) }
        }
    }

    @Test func controlCharactersFromReferencesAreNotEntries() throws {
        let xspf =
            "<playlist><trackList><track><location>http://a/&#0;x</location></track><track><location>http://a/ok</location></track></trackList></playlist>"
        #expect(try Playlist.read(Array(xspf.utf8), format: .xspf).entries == [PlaylistEntry("http://a/ok")])
    }
}
