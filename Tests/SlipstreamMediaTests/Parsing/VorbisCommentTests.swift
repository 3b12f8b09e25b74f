import Testing
import MediaTestSupport
@testable import SlipstreamMedia

@Suite struct VorbisCommentTests {
    /// A Vorbis comment block: the vendor string, then the comments.
    static func block(vendor: String = "reference libFLAC 1.4.3", _ comments: [[UInt8]]) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } }
        var bytes = length(vendor.utf8.count) + Array(vendor.utf8) + length(comments.count)
        for comment in comments { bytes += length(comment.count) + comment }
        return bytes
    }

    /// Reads `bytes` in pieces of the sizes `sizes` yields; returns the tags, the bytes used and
    /// whether the block was complete.
    private func read(_ bytes: [UInt8], sizes: () -> Int) -> (AudioTags, Int, Bool) {
        var reader = VorbisComment()
        var tags = AudioTags()
        var used = 0
        bytes.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count {
                let end = min(start + max(sizes(), 1), raw.count)
                let piece = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                let taken = reader.read(piece, into: &tags)
                used += taken
                if taken < piece.count { break }
                start = end
            }
        }
        return (tags, used, reader.isComplete)
    }

    /// Reads whole, byte by byte and in random pieces, which must agree.
    private func readEveryWay(_ bytes: [UInt8]) -> (AudioTags, Int, Bool) {
        let whole = read(bytes) { bytes.count }
        let single = read(bytes) { 1 }
        var random = SeededRandom(state: 15)
        let pieces = read(bytes) { Int.random(in: 1...9, using: &random) }
        #expect(single.0 == whole.0 && single.1 == whole.1 && single.2 == whole.2)
        #expect(pieces.0 == whole.0 && pieces.1 == whole.1 && pieces.2 == whole.2)
        return whole
    }

    @Test func mapsTitleArtistAndAlbumWithoutCaseAndKeepsTheFirstValue() {
        let block = Self.block([
            Array("title=Ça va".utf8), Array("ARTIST=First".utf8), Array("Artist=Second".utf8),
            Array("DATE=2024".utf8), Array("TRACKNUMBER=3".utf8), Array("GENRE=Folk".utf8),
            Array("COMMENT=no".utf8), Array("AlBuM=Ålbum".utf8), Array("no equals sign".utf8), [],
        ])
        let (tags, used, complete) = readEveryWay(block + [1, 0xFF, 0xFF])
        #expect(tags.title == "Ça va")
        #expect(tags.artist == "First")
        #expect(tags.album == "Ålbum")
        #expect(tags.kinds == [.vorbisComment])
        #expect(used == block.count)  // the framing bit after the block is not used
        #expect(complete)
    }

    @Test func passesOverLongCommentsWithoutHoldingThem() {
        let picture = Array("METADATA_BLOCK_PICTURE=".utf8) + [UInt8](repeating: 0x41, count: 200_000)
        let longTitle = Array("TITLE=".utf8) + [UInt8](repeating: 0x42, count: VorbisComment.maximumCommentSize)
        let block = Self.block([picture, longTitle, Array("TITLE=Kept".utf8)])
        let (tags, used, complete) = readEveryWay(block)
        #expect(tags.title == "Kept")
        #expect(used == block.count)
        #expect(complete)
    }

    @Test func emptyAndTruncatedBlocks() {
        let empty = Self.block(vendor: "", [])
        #expect(readEveryWay(empty) == (AudioTags(kinds: [.vorbisComment]), 8, true))
        let whole = Self.block([Array("TITLE=T".utf8), Array("ALBUM=A".utf8)])
        let truncated = Array(whole.dropLast(3))
        let (tags, used, complete) = readEveryWay(truncated)
        #expect(tags.title == "T" && tags.album == nil)
        #expect(used == truncated.count)
        #expect(!complete)
        // A count far larger than the comments there are: the reader simply waits for more.
        var lying = Self.block([Array("ARTIST=A".utf8)])
        lying[4 + 23] = 0xFF
        #expect(readEveryWay(lying).0.artist == "A")
        #expect(!readEveryWay(lying).2)
    }

    @Test func trustedAsMuchAsID3v2SoTheFormatsOwnCommentComingLaterWins() {
        var tags = AudioTags()
        tags.set(.title, "From ID3", from: .id3v24)
        tags.noteKind(.id3v24)
        var reader = VorbisComment()
        let block = Self.block([Array("TITLE=From comment".utf8), Array("ALBUM=Album".utf8)])
        _ = block.withUnsafeBytes { reader.read($0, into: &tags) }
        #expect(tags.title == "From comment")
        #expect(tags.album == "Album")
        #expect(tags.kinds == [.id3v24, .vorbisComment])
    }
}
