import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// Every generated fixture, parsed whole, byte by byte and in random splits: identical output,
/// and the figures mpg123/ffprobe report for the same file.
@Suite struct FixtureTests {
    static let fixtures = AudioFixtures.references

    @Test(.enabled(if: !fixtures.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"), arguments: fixtures)
    func matchesReferenceDecoders(_ reference: AudioFixtures.Reference) throws {
        let bytes = try AudioFixtures.bytes(reference.name)
        let run = ParserRun(bytes, chunkSizes: { bytes.count })
        #expect(run.error == nil)
        let properties = run.final
        let format = try #require(properties.format)
        #expect(format.sampleRate == reference.sampleRate)
        #expect(format.channels == reference.channels)
        if let packets = reference.packets {
            #expect(run.packets.count == packets)
            #expect(properties.packetCount == Int64(packets))
        }
        #expect(properties.trimmedFrameCount == reference.samples)
        #expect(properties.durationSource == .counted)
        let duration = try #require(properties.duration)
        #expect(duration == Double(reference.samples) / Double(reference.sampleRate))
        // ffprobe's duration is trimmed for some files (within its rounding and one frame) and
        // untrimmed for others (MPEG-2 and 2.5).
        let untrimmed = Double(run.packets.reduce(0) { $0 + $1.frameCount }) / Double(format.sampleRate)
        if let expected = reference.duration {
            #expect(
                abs(duration - expected) < 0.06 || abs(untrimmed - expected) < 0.001,
                "parser \(duration) s (untrimmed \(untrimmed) s), ffprobe \(expected) s")
        }
        #expect(properties.tags.title == reference.title)
        #expect(properties.tags.artist == reference.artist)
        #expect(properties.tags.album == reference.album)
        #expect(run.maximumHeld <= 16 * 1024 + 8, "held \(run.maximumHeld) bytes")
        // Packets tile the audio: each starts where its frames say.
        var frame: Int64 = 0
        for packet in run.packets {
            #expect(packet.startFrame == frame)
            frame += Int64(packet.frameCount)
        }
    }

    @Test(.enabled(if: !fixtures.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"), arguments: fixtures)
    func everySplitGivesTheSameOutput(_ reference: AudioFixtures.Reference) throws {
        let bytes = try AudioFixtures.bytes(reference.name)
        let whole = ParserRun(bytes, chunkSizes: { bytes.count })
        let byByte = ParserRun(bytes, chunkSizes: { 1 })
        #expect(byByte == whole, "byte by byte: \(byByte.firstDifference(from: whole))")
        var random = SeededRandom(state: UInt64(bytes.count))
        for _ in 0..<3 {
            let split = ParserRun(bytes, chunkSizes: { Int.random(in: 1...4096, using: &random) })
            #expect(split == whole, "random split: \(split.firstDifference(from: whole))")
        }
    }
}
