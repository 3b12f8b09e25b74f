import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamMedia

/// The seek table and discontinuities, on real files.
@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct SeekTests {
    /// Parses `bytes[..<end]` then, after a discontinuity, `bytes[offset...]`; returns the
    /// packets after the discontinuity.
    private func packetsAfterSeek(_ bytes: [UInt8], parsedUpTo end: Int, seekTo offset: (AudioStreamParser) -> Int64)
        throws -> (before: AudioStreamParser, packets: [AudioPacket])
    {
        var parser = AudioStreamParser()
        _ = try parser.parse(Array(bytes[..<end]))
        let before = parser
        let target = Int(offset(parser))
        parser.discontinuity(at: Int64(target))
        var packets = try parser.parse(Array(bytes[target...])) + parser.finish()
        packets.removeAll { if case .packet = $0 { false } else { true } }
        return (before, packets.compactMap { if case .packet(let p) = $0 { p } else { nil } })
    }

    @Test(arguments: ["mp3-cbr128.mp3", "mp3-vbr-v0.mp3", "mp3-cbr128-noxing.mp3", "wav-s16.wav", "aac-lc-128k.aac"])
    func seekingIntoTheSeenPartIsExact(_ name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        let full = ParserRun(bytes, chunkSizes: { bytes.count })
        let point = try #require(full.seekTable.offset(forTime: 1.7))
        #expect(point.isExact)
        #expect(point.time <= 1.7)
        let (_, packets) = try packetsAfterSeek(bytes, parsedUpTo: bytes.count) { _ in point.offset }
        let first = try #require(packets.first)
        #expect(first.offset == point.offset)
        #expect(first.startFrame == point.frame)
        // Compressed formats: the same packets as a straight run from there (PCM packets are
        // cut from the seek point instead).
        if full.final.format?.codec != .pcm {
            #expect(packets == full.packets.filter { $0.offset >= point.offset })
        }
        let back = try #require(full.seekTable.time(forOffset: point.offset + 1))
        #expect(back.frame == point.frame && back.isExact)
    }

    @Test func beyondTheSeenPartAVBRStreamUsesTheXingTableAndSaysSo() throws {
        let bytes = try AudioFixtures.bytes("mp3-vbr-v0.mp3")
        let (before, packets) = try packetsAfterSeek(bytes, parsedUpTo: 8000) {
            $0.seekTable.offset(forTime: 2.5)!.offset
        }
        let point = try #require(before.seekTable.offset(forTime: 2.5))
        #expect(point.method == .xingTable && !point.isExact)
        #expect(before.seekTable.offset(forTime: 0.05)?.method == .frameIndex)
        #expect(!packets.isEmpty)
        #expect(packets.allSatisfy { $0.startFrame == nil })
        #expect(before.properties.durationSource == .header)
        #expect(before.properties.bitRate?.source == .vbrHeader)
    }

    @Test func aCBRStreamIsExactEverywhere() throws {
        let bytes = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
        let full = ParserRun(bytes, chunkSizes: { bytes.count })
        let (before, packets) = try packetsAfterSeek(bytes, parsedUpTo: 4000) {
            $0.seekTable.offset(forTime: 2.0)!.offset
        }
        let point = try #require(before.seekTable.offset(forTime: 2.0))
        #expect(point.method == .constantBitRate)
        let first = try #require(packets.first)
        // The packet found at or after the computed offset has the time the table promised.
        let truth = try #require(full.packets.first { $0.offset >= point.offset })
        #expect(first == truth)
        #expect(first.startFrame == point.frame)
        #expect(before.properties.bitRate == .init(bitsPerSecond: 128_000, mode: .constant, source: .frameHeader))
        #expect(before.properties.durationSource == nil)
    }

    @Test func durationIsEstimatedFromTheSizeWhenTheHeaderHasNone() throws {
        let bytes = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
        var parser = AudioStreamParser(hints: .init(totalByteCount: Int64(bytes.count)))
        _ = try parser.parse(Array(bytes[..<5000]))
        #expect(parser.properties.durationSource == .estimate)
        let duration = try #require(parser.properties.duration)
        #expect(abs(duration - 3.03) < 0.05)
    }
}
