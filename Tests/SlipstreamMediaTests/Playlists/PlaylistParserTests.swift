import Testing
@testable import SlipstreamMedia

/// The playlist parsers, each on what real players and stations write, and on the forms the
/// formats allow that are easy to get wrong.
@Suite struct PlaylistParserTests {
    static func read(_ text: String, _ format: PlaylistFormat) throws(PlaylistError) -> [PlaylistEntry] {
        try Playlist.read(Array(text.utf8), format: format).entries
    }

    // MARK: - M3U

    @Test func plainM3UListsItsLinesAndSkipsCommentsAndBlanks() throws {
        let entries = try Self.read("# my list\nhttp://a/1.mp3\n\n  relative/2.mp3  \n/abs/3.mp3\n#comment\n", .m3u)
        #expect(entries == [PlaylistEntry("http://a/1.mp3"), PlaylistEntry("relative/2.mp3"), PlaylistEntry("/abs/3.mp3")])
    }

    @Test func extendedM3UGivesTitlesToTheNextEntryOnly() throws {
        let text = """
            #EXTM3U
            #EXTINF:123, Artist - Title
            http://a/1.mp3
            http://a/2.mp3
            #EXTINF:-1 tvg-id="x" tvg-name="A, B" group-title="News",Channel One
            #EXTVLCOPT:network-caching=1000
            http://a/3.mp3
            #EXTINF:5,
            http://a/4.mp3
            """
        let entries = try Self.read(text, .m3u)
        #expect(
            entries == [
                PlaylistEntry("http://a/1.mp3", title: "Artist - Title"), PlaylistEntry("http://a/2.mp3"),
                PlaylistEntry("http://a/3.mp3", title: "Channel One"), PlaylistEntry("http://a/4.mp3"),
            ])
    }

    @Test func m3u8ThatIsNotHLSIsAPlaylist() throws {
        let entries = try Self.read("#EXTM3U\n#EXTINF:-1,Ünïcödé ✓\nhttps://h/stream\n", .m3u)
        #expect(entries == [PlaylistEntry("https://h/stream", title: "Ünïcödé ✓")])
    }

    @Test(arguments: [
        "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:9.0,\nseg0.ts\n",
        "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=128000\nlow/index.m3u8\n",
        "#EXTM3U\n#EXTINF:10,\nseg.ts\n#EXT-X-MEDIA-SEQUENCE:7\n",
        "#EXT-X-VERSION:3\n",
    ])
    func hlsIsRefusedNamingHLSAndTheTag(_ text: String) {
        #expect {
            try Self.read(text, .m3u)
        } throws: { error in
            guard let error = error as? PlaylistError else { return false }
            return error.code == .hls && error.message.contains("HLS") && error.message.contains("#EXT-X-")
        }
    }

    @Test func latin1LinesAreDecodedAsLatin1() throws {
        let bytes: [UInt8] = Array("#EXTINF:1,Caf".utf8) + [0xE9] + [0x0A] + Array("http://a/x".utf8)
        #expect(try Playlist.read(bytes, format: .m3u).entries == [PlaylistEntry("http://a/x", title: "Café")])
    }

    @Test func anM3UWithoutEntriesIsAnError() {
        #expect(throws: PlaylistError(.noEntries, "the M3U playlist has no entries")) { try Self.read("#EXTM3U\n\n#EXTINF:1,x\n", .m3u) }
    }

    // MARK: - PLS

    @Test func plsKeysInAnyCaseInTheOrderOfTheirNumbers() throws {
        let text = """
            [Playlist]
            NumberOfEntries=7
            file3=http://a/3
            TITLE3=Three
            File1 = http://a/1
            Title1=One
            Length1=-1
            FILE10=http://a/10
            title2=Two without a file
            Version=2
            """
        let entries = try Self.read(text, .pls)
        #expect(
            entries == [
                PlaylistEntry("http://a/1", title: "One"), PlaylistEntry("http://a/3", title: "Three"), PlaylistEntry("http://a/10"),
            ])
    }

    @Test func plsWithLeadingZerosCommentsAndOtherSections() throws {
        let text = "; comment\n[other]\nFile1=http://not/this\n[playlist]\nFile01=http://a/1\nFile2=\nFile3=http://a/3\n"
        #expect(try Self.read(text, .pls) == [PlaylistEntry("http://a/1"), PlaylistEntry("http://a/3")])
    }

    @Test func plsNumbersThatAreNotNumbersAreIgnored() throws {
        let text = "[playlist]\nFile=http://a/0\nFilex=http://a/x\nFile-1=http://a/m\nFile99999999999=http://a/big\nFile5=http://a/5\n"
        #expect(try Self.read(text, .pls) == [PlaylistEntry("http://a/5")])
    }

    // MARK: - XSPF

    @Test func xspfTracksWithLocationsAndTitles() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment with <track><location>http://no</location></track> -->
            <playlist version="1" xmlns="http://xspf.org/ns/0/">
              <title>The playlist's own title</title>
              <location>http://the.playlist/itself</location>
              <trackList>
                <track>
                  <title>First &amp; best</title>
                  <location>
                     http://a/1.mp3?x=1&amp;y=2
                  </location>
                  <location>http://mirror/1.mp3</location>
                </track>
                <track><location><![CDATA[relative/2 & more.mp3]]></location><annotation>note</annotation></track>
                <track><title>No location</title></track>
                <track><location>http://a/&#x33;&#46;mp3</location><title>Thr&#233;e</title></track>
              </trackList>
            </playlist>
            """
        let entries = try Self.read(text, .xspf)
        #expect(
            entries == [
                PlaylistEntry("http://a/1.mp3?x=1&y=2", title: "First & best"), PlaylistEntry("http://mirror/1.mp3", title: "First & best"),
                PlaylistEntry("relative/2 & more.mp3"), PlaylistEntry("http://a/3.mp3", title: "Thrée"),
            ])
    }

    @Test func xspfWithAPrefixUppercaseNamesSelfClosingTagsAndADoctype() throws {
        let text = """
            <!DOCTYPE playlist [ <!ENTITY lol "<track><location>http://evil</location></track>"> ]>
            <x:PLAYLIST xmlns:x="http://xspf.org/ns/0/"><x:trackList>
            <x:track/><x:track attr='a > b'><x:location>http://a/1</x:location></x:track>
            <x:track><x:location>&lol;</x:location></x:track>
            </x:trackList></x:PLAYLIST>
            """
        #expect(try Self.read(text, .xspf) == [PlaylistEntry("http://a/1"), PlaylistEntry("&lol;")])
    }

    @Test func xspfTolerantOfUnclosedAndMismatchedTags() throws {
        let text = "<playlist><trackList><track><location>http://a/1</location><b></track><track><location>http://a/2"
        // The first track closes its unclosed <b>; the second is never closed: not an entry.
        #expect(try Self.read(text, .xspf) == [PlaylistEntry("http://a/1")])
    }

    @Test func xmlThatIsNotXSPFHasNoEntries() {
        #expect(throws: PlaylistError.self) { try Self.read("<html><body><a href='http://a/1.mp3'>x</a></body></html>", .xspf) }
        #expect(throws: PlaylistError.self) {
            try Self.read("<rss><trackList><track><location>http://a</location></track></trackList></rss>", .xspf)
        }
    }
}
