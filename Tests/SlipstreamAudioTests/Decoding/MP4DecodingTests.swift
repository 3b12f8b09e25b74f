import Foundation
import TestSupport
import Testing

import MediaTestSupport
@testable import SlipstreamAudio

/// AAC from MP4 through libfaad2 (`NeAACDecInit2`), gapless-trimmed by the edit list: the
/// source's length exactly, and `faad`'s samples exactly. `faad` (and ffmpeg 5's `-i x.m4a
/// x.wav`) output 146 432 frames for a 145 530-frame source: faad leaves out the first packet's
/// (silent) output and trims nothing, ffmpeg trims the edit list's start only. The edit list
/// says both ends (its start and the last sample's short duration): the source's length.
@Suite struct MP4DecodingTests {
    /// `faad` of fixture `name`: its PCM.
    static func faad(_ name: String) async throws -> [UInt8] {
        try await ReferenceDecoder.faad(try AudioFixtures.path(name))
    }

    static func decode(_ bytes: [UInt8], gapless: Bool = true, chunkSize: Int = 64 << 10) throws -> (StreamDecoding.Summary, [UInt8]) {
        var pcm: [UInt8] = []
        let summary = try bytes.withUnsafeBytes { raw in
            try StreamDecoding.decode(raw, gapless: gapless, chunkSize: chunkSize) { pcm.append(contentsOf: $0.bytes) }
        }
        return (summary, pcm)
    }

    @Test(arguments: ["mp4-aac-moov-end.m4a", "mp4-aac-faststart.m4a", "mp4-aac-22050-mono.m4a", "mp4-aac-chapters.m4b"])
    func gaplessOutputIsTheSourcesLengthAndFaadsSamples(name: String) async throws {
        let (summary, pcm) = try Self.decode(try AudioFixtures.bytes(name))
        let frames = try FixtureFacts.mp4SourceFrames(name)
        #expect(summary.frameCount == frames)
        let format = try #require(summary.format)
        var reference = try await Self.faad(name)
        if format.channels == 1 {
            // faad writes mono as two equal channels (libfaad2's output for a stream that may
            // carry parametric stereo); the decoder folds them back into one.
            reference = stride(from: 0, to: reference.count - 3, by: 4).flatMap { reference[$0..<$0 + 2] }
        }
        // faad trims nothing at the end: its output runs on past the source's length.
        #expect(reference.count / format.bytesPerFrame >= Int(frames))
        let same = pcm == Array(reference.prefix(pcm.count))
        #expect(same, "differs from faad: \(largestStep(pcm, Array(reference.prefix(pcm.count))))")
    }

    /// HE-AAC signalled after the core's configuration (no Debian encoder writes HE-AAC: ffmpeg's
    /// 22.05 kHz file with its "no SBR" extension flag set, and the output rate 44.1 kHz):
    /// decoded at 44.1 kHz, 2048 frames a packet, its start trimmed at the output rate, as
    /// `faad` decodes the same file.
    @Test func heAACSignalledAfterTheCoreDecodesAtTheOutputRateAsFaadDoes() async throws {
        var bytes = try AudioFixtures.bytes("mp4-aac-22050-mono.m4a")
        // LC, 22.05 kHz, mono, 0x2B7, type 5, SBR 0 -> SBR 1 and index 4 (44.1 kHz).
        let config: [UInt8] = [0x13, 0x88, 0x56, 0xE5, 0x00]
        let at = try #require((0...(bytes.count - config.count)).first { bytes[$0..<$0 + config.count].elementsEqual(config) })
        bytes[at + 4] = 0xA0
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("he-aac-\(getpid()).m4a").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (summary, pcm) = try Self.decode(bytes)
        let format = try #require(summary.format)
        #expect(format.sampleRate == 44100 && format.channels == 1)
        #expect(summary.frameCount == 2 * (try FixtureFacts.mp4SourceFrames("mp4-aac-22050-mono.m4a")))
        let stereo = try await ReferenceDecoder.faad(path)
        // faad writes the mono core as two equal channels (it may carry parametric stereo).
        let reference = stride(from: 0, to: stereo.count - 3, by: 4).flatMap { stereo[$0..<$0 + 2] }
        #expect(reference.count >= pcm.count)
        let same = pcm == Array(reference.prefix(pcm.count))
        #expect(same, "differs from faad: \(largestStep(pcm, Array(reference.prefix(pcm.count))))")
    }

    @Test func fragmentsDecodeAsTheWholeFile() throws {
        // The same encoder, the same access units: fragments change only where they lie.
        let (_, fragmented) = try Self.decode(try AudioFixtures.bytes("mp4-aac-fragmented.mp4"), gapless: false)
        let (_, whole) = try Self.decode(try AudioFixtures.bytes("mp4-aac-faststart.m4a"), gapless: false)
        #expect(fragmented.count == whole.count)
        let same = fragmented == whole
        #expect(same, "fragments decode differently")
    }

    @Test func seekingDecodesFromThePacketBeforeAndMatchesTheWholeDecodeButNoise() throws {
        let bytes = try AudioFixtures.bytes("mp4-aac-faststart.m4a")
        let stream = try ParsedStream(bytes)
        let decoder = try AudioDecoders.make(for: try stream.format)
        let whole = try stream.decode(stream.packets.indices, with: decoder)
        let table = try #require(
            { () -> AudioSeekTable? in
                var parser = AudioStreamParser()
                _ = try? parser.parse(bytes)
                return parser.seekTable
            }())
        let frameBytes = try stream.format.channels * 2
        for time in [0.5, 1.3, 2.7] {
            // One packet of priming, as the player does (`primingPacketCount`).
            let point = try #require(table.offset(forTime: time - 1024.0 / 44100))
            let index = try #require(stream.packets.firstIndex { $0.offset == point.offset })
            decoder.reset()
            let decoded = try stream.decode(index..<stream.packets.count, with: decoder)
            let skip = 1024 * frameBytes
            let start = Int(point.frame) * frameBytes + skip
            let a = Array(decoded[skip...]), b = Array(whole[start...])
            // The same frames, not bit for bit: the right channel is pink noise, which the encoder
            // codes as noise (PNS) and libfaad2 fills from a generator that restarts with it (a
            // little leaks into the left through mid/side coding). The sweep on the left within
            // 1% of full scale, the noise's level within a few per cent.
            #expect(a.count == b.count)
            let left = { (pcm: [UInt8]) in stride(from: 0, to: pcm.count - 3, by: 4).flatMap { pcm[$0..<$0 + 2] } }
            #expect(largestStep(left(a), left(b)) < 330, "at \(time) s: left channel differs by \(largestStep(left(a), left(b)))")
        }
    }
}
