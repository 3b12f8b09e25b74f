import Testing

@testable import SlipstreamMedia

/// The plan of `get --hls`, from playlists alone (no I/O).
@Suite struct HLSDownloadPlannerTests {
    private static let base = "http://h.test/show/index.m3u8"

    private static func plan(_ text: String, url: String = base) throws -> HLSDownloadPlan {
        guard case .plan(let plan) = try HLSDownloadPlanner.read(Array(text.utf8), url: url, base: url, variant: false) else {
            Issue.record("not a plan")
            return HLSDownloadPlan(playlistURL: url)
        }
        return plan
    }

    private static func failure(_ text: String, variant: Bool = false) -> String? {
        do {
            _ = try HLSDownloadPlanner.read(Array(text.utf8), url: base, base: base, variant: variant)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func segmentsInOrderResolvedAgainstThePlaylist() throws {
        let plan = try Self.plan(
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:6,\na.ts\n#EXTINF:4.5,\n../b.ts\n"
                + "#EXTINF:6,\nhttp://cdn.test/c.ts\n#EXT-X-ENDLIST\n")
        #expect(plan.resources.map(\.url) == ["http://h.test/show/a.ts", "http://h.test/b.ts", "http://cdn.test/c.ts"])
        #expect(plan.pieces.map(\.resource) == [0, 1, 2])
        #expect(plan.pieces.map(\.sequence) == [7, 8, 9])
        #expect(plan.pieces.allSatisfy { $0.isSegment && $0.offset == nil && $0.decryption == nil })
        #expect(plan.segmentCount == 3)
        #expect(plan.duration == 16.5)
        #expect(plan.describe(resource: 1) == "segment 8 (http://h.test/b.ts)")
    }

    @Test func byteRangesOfOneFileAreOneResource() throws {
        let plan = try Self.plan(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\nall.ts\n"
                + "#EXTINF:2,\n#EXT-X-BYTERANGE:50\nall.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:10@500\nall.ts\n")
        #expect(plan.resources.count == 1)
        #expect(plan.pieces.map(\.offset) == [0, 100, 500])
        #expect(plan.pieces.map(\.length) == [100, 50, 10])
    }

    @Test func anInitSectionLeadsWhereItStartsOrChanges() throws {
        let plan = try Self.plan(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:2,\nf0.m4s\n#EXTINF:2,\nf1.m4s\n"
                + "#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init2.mp4\",BYTERANGE=\"700@20\"\n#EXTINF:2,\nf2.m4s\n#EXT-X-ENDLIST\n")
        #expect(plan.pieces.map(\.isSegment) == [false, true, true, false, true])
        #expect(
            plan.pieces.map { plan.resources[$0.resource].url.split(separator: "/").last! } == [
                "init.mp4", "f0.m4s", "f1.m4s", "init2.mp4", "f2.m4s",
            ])
        #expect(plan.pieces[3].offset == 20 && plan.pieces[3].length == 700)
        #expect(plan.resources[0].kind == .initSection)
    }

    @Test func aes128KeysAreResourcesAndTheIVIsGivenOrTheSequenceNumber() throws {
        let plan = try Self.plan(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:258\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"\n"
                + "#EXTINF:2,\ne0.ts\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\",IV=0x0F\n#EXTINF:2,\ne1.ts\n"
                + "#EXT-X-KEY:METHOD=NONE\n#EXTINF:2,\np2.ts\n#EXT-X-ENDLIST\n")
        #expect(plan.resources.map(\.kind) == [.key, .segment, .segment, .segment])
        #expect(plan.pieces[0].decryption == .init(key: 0, iv: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]))
        #expect(plan.pieces[1].decryption == .init(key: 0, iv: Array(repeating: 0, count: 15) + [15]))
        #expect(plan.pieces[2].decryption == nil)
        #expect(plan.describe(resource: 0) == "AES-128 key (http://h.test/show/k.key)")
    }

    /// One URL as a key and as an init section or segment is refused (PlaylistFuzzer found it
    /// taken for a key to write into the file).
    @Test(arguments: ["#EXT-X-MAP:URI=\"k.key\"\n#EXTINF:6,\na.mp4\n", "#EXTINF:6,\nk.key\n"])
    func aKeyThatIsAlsoMediaIsRefused(_ media: String) {
        let message = Self.failure(
            "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"\n" + media + "#EXT-X-ENDLIST\n")
        let expected = "\(Self.base): http://h.test/show/k.key is listed both as an AES-128 key and as media"
        #expect(message == expected, "\(String(describing: message))")
    }

    @Test func aMasterPlaylistNamesTheVariantToFetch() throws {
        let master =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nlow/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=160000,CODECS=\"mp4a.40.2\"\nhigh/index.m3u8\n"
        let step = try HLSDownloadPlanner.read(Array(master.utf8), url: Self.base, base: "http://h.test/moved/m.m3u8", variant: false)
        #expect(step == .fetchVariant(url: "http://h.test/moved/high/index.m3u8"))
        #expect(Self.failure(master, variant: true)?.contains("the variant's playlist is a master playlist too") == true)
    }

    @Test func refusedWithAReason() {
        let head = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        #expect(Self.failure(head + "#EXTINF:2,\na.ts\n")?.contains("is a live HLS playlist") == true)
        // (The library states facts: what to do with the command line is the command's to say.)
        #expect(Self.failure(head + "#EXTINF:2,\na.ts\n")?.contains("slipstream") == false)
        #expect(Self.failure(head + "#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:2,\na.ts\n")?.contains("live") == true)
        #expect(Self.failure(head + "#EXTINF:2,\nindex.m3u8\n#EXT-X-ENDLIST\n")?.contains("lists itself as a segment") == true)
        #expect(
            Self.failure("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nindex.m3u8\n")?.contains("lists itself as its variant") == true)
        #expect(
            Self.failure(head + "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n#EXTINF:2,\na.ts\n#EXT-X-ENDLIST\n")?.contains(
                "SAMPLE-AES, which is not supported") == true)
        #expect(Self.failure(head + "#EXT-X-ENDLIST\n")?.contains("lists no segment") == true)
        #expect(Self.failure("not a playlist")?.hasPrefix(Self.base + ": ") == true)
        #expect(
            Self.failure(head + "#EXTINF:2,\nftp://h.test/a.ts\n#EXT-X-ENDLIST\n")?.contains("ftp://h.test/a.ts in the HLS playlist")
                == true)
    }

    @Test func aPlaylistThatHasEndedIsNotLiveWhateverItsType() throws {
        let plan = try Self.plan("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:2,\na.ts\n#EXT-X-ENDLIST\n")
        #expect(plan.segmentCount == 1)
    }
}
