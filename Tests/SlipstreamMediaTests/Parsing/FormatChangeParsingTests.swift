import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamMedia

/// The parser on streams whose format changes at a frame boundary (two files joined, as a
/// station's playlist sends them): every frame of both parts comes out as a packet, the new
/// format is told before the second part's first packet, nothing is junk, and the second file's
/// Xing/Info frame is not audio. Any split of the bytes gives the same.
@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct FormatChangeParsingTests {
    /// Pairs of fixtures of different formats: with a second Info frame and ID3v2 tags, with a
    /// second Info frame, without one (the change's first frame is audio), and ADTS.
    static let joins = [
        ("mp3-id3v2-lame.mp3", "mp3-mpeg2-22050-mono.mp3"),
        ("mp3-cbr128.mp3", "mp3-mpeg2-16000-mono.mp3"),
        ("mp3-cbr128.mp3", "mp3-mpeg25-12000-noxing.mp3"),
        ("aac-lc-128k.aac", "aac-lc-48000-mono.aac"),
    ]

    /// A packet's place and size, and the sample rate told when it came.
    struct Placed: Equatable {
        var offset: Int64
        var size: Int
        var frameCount: Int
        var sampleRate: Int?
    }

    static func placed(_ run: ParserRun, shiftedBy shift: Int64 = 0) -> [Placed] {
        var rate: Int?
        return run.events.compactMap { event in
            switch event {
            case .propertiesChanged(let properties):
                rate = properties.format?.sampleRate
                return nil
            case .packet(let packet):
                return Placed(offset: packet.offset + shift, size: packet.size, frameCount: packet.frameCount, sampleRate: rate)
            }
        }
    }

    @Test(arguments: joins)
    func bothPartsComeOutWholeAndTheNewFormatIsToldAtTheBoundary(_ first: String, _ second: String) throws {
        let a = try AudioFixtures.bytes(first), b = try AudioFixtures.bytes(second)
        let joined = a + b
        let whole = ParserRun(joined, chunkSizes: { joined.count })
        #expect(whole.error == nil)
        let alone =
            Self.placed(ParserRun(a, chunkSizes: { a.count }))
            + Self.placed(ParserRun(b, chunkSizes: { b.count }), shiftedBy: Int64(a.count))
        let placed = Self.placed(whole)
        #expect(placed.count == alone.count)
        let same = placed == alone
        #expect(same, "first difference at packet \(placed.indices.first { $0 >= alone.count || placed[$0] != alone[$0] } ?? -1)")
        #expect(whole.final.junkByteCount == 0)
        // Packet times run on across the change.
        #expect(whole.packets.last?.startFrame == Int64(placed.dropLast().reduce(0) { $0 + $1.frameCount }))

        var random = SeededRandom(state: UInt64(joined.count))
        for largest in [7, 4096] {
            let split = ParserRun(joined, chunkSizes: { Int.random(in: 1...largest, using: &random) })
            #expect(split == whole, "random split up to \(largest): \(split.firstDifference(from: whole))")
        }
    }
}
