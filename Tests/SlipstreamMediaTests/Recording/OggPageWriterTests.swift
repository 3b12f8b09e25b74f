import Testing
@testable import SlipstreamMedia

/// The recorder's Ogg pages, read back by a reader of this test's own (RFC 3533): every page's
/// capture pattern, CRC, flags, sequence and granule position, and the packets laced in them,
/// for packets of every size around the lacing's edges (empty, 255 k bytes, longer than a page).
struct OggPageWriterTests {
    struct Page {
        var flags: UInt8
        var granule: Int64
        var serial: UInt32
        var sequence: UInt32
        var segments: [UInt8]
        var body: [UInt8]
    }

    /// The pages of `bytes`, each checked for its capture pattern and CRC.
    static func pages(_ bytes: [UInt8]) -> [Page] {
        var pages: [Page] = []
        var index = 0
        func number(_ at: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
        }
        while index < bytes.count {
            #expect(Array(bytes[index..<index + 4]) == Array("OggS".utf8))
            let count = Int(bytes[index + 26])
            let segments = Array(bytes[index + 27..<index + 27 + count])
            let size = 27 + count + segments.reduce(0) { $0 + Int($1) }
            var copy = Array(bytes[index..<index + size])
            copy.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            let crc = copy.withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
            #expect(UInt32(number(index + 22, 4)) == crc)
            pages.append(
                Page(
                    flags: bytes[index + 5], granule: Int64(bitPattern: number(index + 6, 8)),
                    serial: UInt32(number(index + 14, 4)), sequence: UInt32(number(index + 18, 4)), segments: segments,
                    body: Array(bytes[index + 27 + count..<index + size])))
            index += size
        }
        return pages
    }

    /// The packets of `pages` (a packet ends at a segment under 255 bytes), each with the
    /// granule position of the page it ends on when it is the last to end there.
    static func packets(_ pages: [Page]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        for page in pages {
            var offset = 0
            for segment in page.segments {
                current += page.body[offset..<offset + Int(segment)]
                offset += Int(segment)
                if segment < 255 {
                    packets.append(current)
                    current = []
                }
            }
        }
        return packets
    }

    @Test func packetsOfEverySizeComeBackFromValidPages() {
        let sizes = [0, 1, 254, 255, 256, 510, 4000, 255 * 255, 70000, 3, 9000]
        let input = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + index) } }
        var writer = OggPageWriter(serial: 0xDEAD_BEEF)
        var bytes: [UInt8] = []
        for (index, packet) in input.enumerated() {
            packet.withUnsafeBytes { writer.add($0, granule: Int64(index + 1) * 1000) { bytes += $0 } }
        }
        writer.finish { bytes += $0 }
        let pages = Self.pages(bytes)
        #expect(Self.packets(pages) == input)
        #expect(pages.map(\.sequence) == Array(0..<UInt32(pages.count)))
        #expect(pages.allSatisfy { $0.serial == 0xDEAD_BEEF && $0.segments.count <= 255 })
        #expect(pages.first?.flags == 2)
        #expect(pages.last.map { $0.flags & 4 } == 4)
        #expect(pages.dropLast().allSatisfy { $0.flags & 4 == 0 })
        // A page continues a packet exactly when the page before ended inside one.
        for (before, page) in zip(pages, pages.dropFirst()) {
            #expect((page.flags & 1 == 1) == (before.segments.last == 255))
        }
        // Each page's granule is the one of the last packet it ends, or -1 when it ends none
        // (but an empty last page: the stream's last granule).
        var ended = 0
        for page in pages {
            let ends = page.segments.filter { $0 < 255 }.count
            ended += ends
            let emptyLast = page.segments.isEmpty && page.flags & 4 == 4
            #expect(page.granule == (ends == 0 && !emptyLast ? -1 : Int64(ended) * 1000))
        }
        #expect(ended == input.count)
    }

    @Test func aPageIsHandedOutOnceItsBodyReachesTheTarget() {
        var writer = OggPageWriter(serial: 1)
        var pages = 0
        let packet = [UInt8](repeating: 9, count: 1000)
        for index in 0..<4 {
            packet.withUnsafeBytes { writer.add($0, granule: Int64(index)) { _ in pages += 1 } }
        }
        #expect(pages == 0)
        packet.withUnsafeBytes { writer.add($0, granule: 4) { _ in pages += 1 } }
        #expect(pages == 1)
    }

    @Test func aStreamEndedWithNothingPendingGetsAnEmptyLastPageAtItsGranule() {
        var writer = OggPageWriter(serial: 1)
        var bytes: [UInt8] = []
        [UInt8](repeating: 1, count: 5000).withUnsafeBytes { writer.add($0, granule: 77) { bytes += $0 } }
        writer.finish { bytes += $0 }
        let pages = Self.pages(bytes)
        #expect(pages.count == 2)
        #expect(pages.last?.segments.isEmpty == true && pages.last?.flags == 4 && pages.last?.granule == 77)
    }

    @Test func aCommentBlockCarriesTheTitleAndArtist() {
        let block = VorbisCommentWriter.block(StreamTitle(title: "Some Artist - Ça va"))
        var tags = AudioTags()
        var comment = VorbisComment()
        _ = block.withUnsafeBytes { comment.read($0, into: &tags) }
        #expect(tags.title == "Ça va" && tags.artist == "Some Artist")
        var untitled = AudioTags()
        var empty = VorbisComment()
        _ = VorbisCommentWriter.block(nil).withUnsafeBytes { empty.read($0, into: &untitled) }
        #expect(empty.isComplete && untitled.title == nil)
    }
}
