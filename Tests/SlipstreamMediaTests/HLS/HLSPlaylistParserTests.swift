import Testing
import TestSupport

@testable import SlipstreamMedia

/// The HLS playlist reader alone: the RFC 8216 examples, byte ranges, keys and maps, sequence
/// numbers, and hostile input.
struct HLSPlaylistParserTests {
    static func parse(_ text: String) throws(PlaylistError) -> HLSPlaylist {
        try HLSPlaylistParser.parse(Array(text.utf8))
    }

    static func media(_ text: String) throws -> HLSMediaPlaylist {
        guard case .media(let media) = try parse(text) else { throw PlaylistError(.malformed, "not a media playlist") }
        return media
    }

    static func master(_ text: String) throws -> HLSMasterPlaylist {
        guard case .master(let master) = try parse(text) else { throw PlaylistError(.malformed, "not a master playlist") }
        return master
    }

    /// RFC 8216, 8.1 and 8.2: a simple media playlist and a live one.
    @Test func simpleAndLiveMediaPlaylists() throws {
        let simple = try Self.media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-VERSION:3
            #EXTINF:9.009,
            http://media.example.com/first.ts
            #EXTINF:9.009,
            http://media.example.com/second.ts
            #EXTINF:3.003,
            http://media.example.com/third.ts
            #EXT-X-ENDLIST
            """)
        #expect(simple.targetDuration == 10)
        #expect(simple.segments.map(\.uri) == ["first", "second", "third"].map { "http://media.example.com/\($0).ts" })
        #expect(simple.segments.map(\.sequence) == [0, 1, 2])
        #expect(abs(simple.duration - 21.021) < 1e-9)
        #expect(simple.hasEnded && !simple.isLive && simple.kind == nil)

        let live = try Self.media(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:8
            #EXT-X-MEDIA-SEQUENCE:2680

            #EXTINF:7.975,
            https://priv.example.com/fileSequence2680.ts
            #EXTINF:7.941,
            https://priv.example.com/fileSequence2681.ts
            #EXTINF:7.975,
            https://priv.example.com/fileSequence2682.ts
            """)
        #expect(live.isLive)
        #expect(live.mediaSequence == 2680)
        #expect(live.segments.map(\.sequence) == [2680, 2681, 2682])
    }

    /// RFC 8216, 8.3: keys change between segments; METHOD=NONE ends encryption.
    @Test func encryptionKeysApplyUntilTheNextKeyTag() throws {
        let media = try Self.media(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-MEDIA-SEQUENCE:7794
            #EXT-X-TARGETDURATION:15

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=52"

            #EXTINF:2.833,
            http://media.example.com/fileSequence52-A.ts
            #EXTINF:15.0,
            http://media.example.com/fileSequence52-B.ts

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=53",IV=0x0123456789abcdef0123456789ABCDEF

            #EXTINF:14.2,
            http://media.example.com/fileSequence53-A.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:1,
            clear.ts
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXTINF:1,
            sample.ts
            """)
        let keys = media.segments.map(\.key)
        #expect(keys[0] == .init(method: .aes128, uri: "https://priv.example.com/key.php?r=52", iv: nil))
        #expect(keys[1] == keys[0])
        #expect(
            keys[2]?.iv
                == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
        #expect(keys[3] == nil)
        #expect(keys[4]?.method == .other("SAMPLE-AES"))
        #expect(media.segments.map(\.sequence) == [7794, 7795, 7796, 7797, 7798])
    }

    /// RFC 8216, 8.4 and 8.6: a master playlist with audio-only and video variants, and audio
    /// renditions in groups.
    @Test func masterPlaylistsListVariantsAndRenditions() throws {
        let master = try Self.master(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,URI="eng/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",LANGUAGE="fr",NAME="Français",AUTOSELECT=YES,DEFAULT=NO,URI="fre/prog_index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac"
            http://example.com/mid.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=65000,AVERAGE-BANDWIDTH=60000,CODECS="mp4a.40.5"
            http://example.com/audio-only.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a.40.2",SOMETHING-NEW="a,b"
            http://example.com/audio-hi.m3u8
            """)
        #expect(master.variants.map(\.bandwidth) == [1_280_000, 65000, 128_000])
        #expect(master.variants[0].hasVideo && master.variants[0].codecs == ["avc1.4d401f", "mp4a.40.2"])
        #expect(master.variants[1].averageBandwidth == 60000 && !master.variants[1].hasVideo)
        #expect(master.variants[2].uri == "http://example.com/audio-hi.m3u8")
        #expect(master.renditions.map(\.name) == ["English", "Français"])
        #expect(master.renditions[0].isDefault && !master.renditions[1].isDefault)

        #expect(HLSVariantChoice.choose(master)?.uri == "http://example.com/audio-hi.m3u8")
        #expect(HLSVariantChoice.choose(master, maximumBitRate: 100_000)?.uri == "http://example.com/audio-only.m3u8")
        #expect(HLSVariantChoice.choose(master, maximumBitRate: 1000)?.uri == "http://example.com/audio-only.m3u8")
        // A video variant asked for by number plays its default audio rendition.
        let video = HLSVariantChoice.choose(master, variantIndex: 0)
        #expect(video?.uri == "eng/prog_index.m3u8" && video?.rendition?.language == "en")
    }

    /// Only video variants: the default audio rendition, or else the cheapest variant.
    @Test func videoOnlyMastersPlayTheirAudio() throws {
        let muxed = try Self.master(
            """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180
            lo.m3u8
            """)
        #expect(HLSVariantChoice.choose(muxed)?.uri == "lo.m3u8")
        let grouped = try Self.master(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="main",AUTOSELECT=YES,URI="audio.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="in the video"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="a"
            video.m3u8
            """)
        #expect(HLSVariantChoice.choose(grouped)?.uri == "audio.m3u8")
    }

    /// Byte ranges: an offset given, one following the previous range of the same resource, and
    /// fMP4's map.
    @Test func byteRangesAndMaps() throws {
        let media = try Self.media(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="720@0"
            #EXTINF:6.0,
            #EXT-X-BYTERANGE:1000@720
            main.mp4
            #EXTINF:6.0,
            #EXT-X-BYTERANGE:2000
            main.mp4
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="other.mp4"
            #EXTINF:4.5,Last one
            #EXT-X-BYTERANGE:500
            other.mp4
            #EXT-X-ENDLIST
            """)
        #expect(media.kind == .vod && !media.isLive)
        #expect(
            media.segments.map(\.byteRange) == [
                .init(offset: 720, length: 1000), .init(offset: 1720, length: 2000), .init(offset: 0, length: 500),
            ])
        #expect(media.segments[0].map == .init(uri: "main.mp4", byteRange: .init(offset: 0, length: 720)))
        #expect(media.segments[2].map == .init(uri: "other.mp4", byteRange: nil))
        #expect(media.segments.map(\.isDiscontinuity) == [false, false, true])
        #expect(media.segments.map(\.discontinuitySequence) == [0, 0, 1])
        #expect(media.segments[2].title == "Last one")
    }

    /// Attribute lists: quoted commas, junk after a quote, lower-case names ignored, hex IVs.
    @Test func attributeLists() {
        let list = HLSAttributeList(#"A="x,y" ,B=12, bad=1,C="open"junk,D=0x1,E=0xZZ,F"#)
        #expect(list["A"] == "x,y")
        #expect(list["B"] == "12")
        #expect(list["bad"] == nil)
        #expect(list["C"] == "open")
        #expect(list.hexadecimal("D", count: 16) == [UInt8](repeating: 0, count: 15) + [1])
        #expect(list.hexadecimal("E", count: 16) == nil)
        #expect(list["F"] == nil)
    }

    /// Broken or hostile input: clear errors, no trap, bounded results.
    @Test func hostileInput() throws {
        #expect(throws: PlaylistError.self) { try Self.parse("#EXTM3U\n#EXTINF:1,\na.ts\n") }
        #expect(throws: PlaylistError.self) { try Self.parse("#EXTM3U\n") }
        #expect(throws: PlaylistError.self) {
            try Self.parse("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\na.ts\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        }
        #expect(throws: PlaylistError.self) {
            try HLSPlaylistParser.parse([UInt8](repeating: 0x23, count: HLSPlaylistParser.maximumSize + 1))
        }
    }

    /// A value the RFC's grammar does not allow, in a tag the reader uses, is refused with its
    /// line's number: never skipped (a skipped segment is audio quietly missing), never trusted
    /// (a huge number overflowed what was computed from it).
    @Test(arguments: [
        ("#EXTINF:-3,", "#EXTINF:-3"), ("#EXTINF:nan,", "#EXTINF:nan"), ("#EXTINF:inf,", "#EXTINF:inf"),
        ("#EXTINF:1e19,", "#EXTINF:1e19"), ("#EXTINF:0x10,", "#EXTINF:0x10"), ("#EXTINF:86401,", "#EXTINF:86401"),
        ("#EXTINF:2,\n#EXT-X-BYTERANGE:10@9223372036854775800", "#EXT-X-BYTERANGE:10@9223372036854775800"),
        ("#EXTINF:2,\n#EXT-X-BYTERANGE:-10", "#EXT-X-BYTERANGE:-10"),
        ("#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,", "#EXT-X-MEDIA-SEQUENCE:9223372036854775807"),
        ("#EXT-X-MEDIA-SEQUENCE:+5\n#EXTINF:2,", "#EXT-X-MEDIA-SEQUENCE:+5"),
        ("#EXT-X-DISCONTINUITY-SEQUENCE:-1\n#EXTINF:2,", "#EXT-X-DISCONTINUITY-SEQUENCE:-1"),
        ("#EXT-X-TARGETDURATION:-10\n#EXTINF:2,", "#EXT-X-TARGETDURATION:-10"),
        ("#EXT-X-TARGETDURATION:1.5\n#EXTINF:2,", "#EXT-X-TARGETDURATION:1.5"),
    ])
    func aValueAgainstTheGrammarIsRefusedWithItsLine(lines: String, shown: String) {
        // The tags under test start on line 3, after two good segments' worth of text.
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:5\n\(lines)\nbad.ts\n#EXTINF:2,\nnext.ts\n"
        do {
            let playlist = try Self.parse(text)
            Issue.record("read as \(playlist)")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.message.contains("line 3 ") || error.message.contains("line 4 "), "\(error.message)")
            #expect(error.message.contains(shown), "\(error.message)")
        }
    }

    /// The byte range that follows the previous one in the same file may not run past the bound
    /// either, and binary junk is refused where it stands.
    @Test func anInheritedRangePastTheBoundAndBinaryJunkAreRefused() {
        let ranges = """
            #EXT-X-TARGETDURATION:5
            #EXTINF:2,
            #EXT-X-BYTERANGE:\(HLSPlaylistParser.maximumByteOffset - 10)@0
            big.ts
            #EXTINF:2,
            #EXT-X-BYTERANGE:20
            big.ts
            """
        #expect(throws: PlaylistError.self) { try Self.parse(ranges) }
        var bytes = Array("#EXT-X-TARGETDURATION:5\n#EXTINF:1,\n\u{1}\u{2}junk\nlost.ts\n".utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        do {
            _ = try HLSPlaylistParser.parse(bytes)
            Issue.record("junk read")
        } catch {
            #expect(error.message.contains("line 3 is not text"), "\(error.message)")
        }
    }

    /// Many segments: more than `maximumSegments` is refused, in linear time.
    @Test func segmentsPastTheMaximumAreRefused() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        for n in 0..<HLSPlaylistParser.maximumSegments { text += "#EXTINF:2,\ns\(n).ts\n" }
        #expect(try Self.media(text).segments.count == HLSPlaylistParser.maximumSegments)
        text += "#EXTINF:2,\none-more.ts\n"
        #expect(throws: PlaylistError.self) { try Self.parse(text) }
    }
}
