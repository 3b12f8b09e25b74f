import Testing
@testable import SlipstreamMedia

/// Telling playlists from audio: by content first, then Content-Type, then extension.
@Suite struct PlaylistRecognizerTests {
    static func verdict(
        _ head: [UInt8], complete: Bool = true, type: String? = nil, name: String? = nil
    ) -> PlaylistRecognizer.Verdict {
        head.withUnsafeBytes { PlaylistRecognizer.recognize($0, isComplete: complete, contentType: type, name: name) }
    }

    static func verdict(_ text: String, complete: Bool = true, type: String? = nil, name: String? = nil) -> PlaylistRecognizer.Verdict {
        verdict(Array(text.utf8), complete: complete, type: type, name: name)
    }

    @Test(arguments: [
        ("#EXTM3U\nhttp://a/1", PlaylistFormat.m3u), ("#extinf:1,x\nhttp://a", .m3u), ("#EXT-X-VERSION:3\n", .m3u),
        ("\u{FEFF}\r\n  [Playlist]\nFile1=x", .pls), ("[playlist]", .pls), ("http://host/stream\n", .m3u), ("HTTPS://host/", .m3u),
        ("<?xml version=\"1.0\"?>\n<playlist xmlns=\"http://xspf.org/ns/0/\">", .xspf), ("<x:playlist>", .xspf),
    ])
    func contentDecidesWhateverTheType(_ text: String, _ format: PlaylistFormat) {
        #expect(Self.verdict(text, type: "audio/mpeg", name: "song.mp3") == .playlist(format))
    }

    @Test func audioIsNeverAPlaylistWhateverItClaims() {
        let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x64, 0x00, 0x00]
        let id3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x10]
        let wav: [UInt8] = Array("RIFF".utf8) + [0x24, 0x08, 0, 0] + Array("WAVE".utf8)
        for head in [mp3, id3, wav] {
            #expect(Self.verdict(head, complete: false, type: "audio/x-mpegurl", name: "x.m3u") == .notPlaylist)
        }
        #expect(Self.verdict(mp3, complete: false) == .notPlaylist)
    }

    @Test func textIsAPlaylistWhenItsTypeOrExtensionSaysSo() {
        let text = "music/song one.mp3\nmusic/two.mp3\n"
        #expect(Self.verdict(text, complete: false, type: "audio/x-mpegurl; charset=UTF-8") == .playlist(.m3u))
        #expect(Self.verdict(text, complete: false, type: "AUDIO/X-SCPLS") == .playlist(.pls))
        #expect(Self.verdict(text, complete: false, name: "http://h/list.M3U8?x=1") == .playlist(.m3u))
        #expect(Self.verdict(text, complete: false, name: "/a/b.xspf") == .playlist(.xspf))
        // The type wins over the extension.
        #expect(Self.verdict(text, complete: false, type: "application/xspf+xml", name: "a.pls") == .playlist(.xspf))
        #expect(Self.verdict(text, complete: false, type: "text/plain", name: "a.txt") == .notPlaylist)
        // An empty body served as a playlist is an (empty) playlist.
        #expect(Self.verdict("", type: "audio/x-scpls") == .playlist(.pls))
        #expect(Self.verdict("") == .notPlaylist)
    }

    @Test func htmlIsNotAPlaylist() {
        let page = "<!DOCTYPE html><html><head><title>Radio</title></head>" + String(repeating: "<p>x</p>", count: 200)
        #expect(Self.verdict(page, complete: false) == .notPlaylist)
        #expect(Self.verdict("<html>", complete: false) == .needMore)
        #expect(Self.verdict("<html>", complete: true) == .notPlaylist)
    }

    /// Too few bytes to tell wait for more, but never past the head limit or the end.
    @Test func aShortHeadWaitsOnlyWhileItCouldBeAPlaylist() {
        for prefix in ["#", "#EXT", "[play", "ht", "http:/", "  ", "\u{FEFF}"] {
            #expect(Self.verdict(prefix, complete: false) == .needMore, "\(prefix)")
        }
        for prefix in ["#EXT", "[play", "ht", "http:/"] {
            #expect(Self.verdict(prefix, complete: true) == .notPlaylist, "\(prefix)")
        }
        #expect(Self.verdict([0xEF, 0xBB], complete: false) == .needMore)
        #expect(Self.verdict([0xEF, 0xBB], complete: true) == .notPlaylist)
        #expect(Self.verdict("ID", complete: false) == .needMore)
        #expect(Self.verdict("ID3\u{4}", complete: false) == .notPlaylist)
        #expect(Self.verdict("C:\\music", complete: false) == .notPlaylist)
        let longText = String(repeating: "a", count: PlaylistRecognizer.headLimit + 10)
        #expect(Self.verdict(longText, complete: false, type: "audio/x-mpegurl") == .playlist(.m3u))
    }
}
