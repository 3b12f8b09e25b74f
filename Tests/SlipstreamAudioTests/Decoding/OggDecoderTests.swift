import CAllocationCounter
import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Vorbis and Opus from Ogg, decoded by the own parser and libvorbis/libopus, against the
/// reference decoders: oggdec (libvorbisfile) and opusdec --no-dither at 48 kHz. The sample
/// count must be the same (gapless trimming by pre-skip and granule position), the samples
/// within a few LSB.
@Suite(.enabled("sox, oggenc and opusenc make the fixtures") { await OggFixtures.made() }) struct OggDecoderTests {
    /// The whole stream through `StreamDecoding`, as 16-bit PCM.
    static func decode(_ bytes: [UInt8], chunkSize: Int = 64 << 10) throws -> [UInt8] {
        var pcm: [UInt8] = []
        _ = try bytes.withUnsafeBytes { raw in
            try StreamDecoding.decode(raw, chunkSize: chunkSize) { pcm += $0.bytes }
        }
        return pcm
    }

    @Test(arguments: OggFixtures.vorbis + OggFixtures.opus)
    func matchesTheReferenceDecoder(_ name: String) async throws {
        let bytes = try OggFixtures.bytes(name)
        let ours = try Self.decode(bytes)
        let reference = try await OggFixtures.reference(name)
        #expect(ours.count == reference.count, "\(name): \(ours.count / 2) vs \(reference.count / 2) samples")
        let step = largestStep(ours, reference)
        #expect(step <= 2, "\(name): largest difference \(step) LSB")
    }

    @Test(arguments: ["vorbis-q3.ogg", "opus-64k.opus"])
    func anySplitDecodesTheSame(_ name: String) throws {
        let bytes = try OggFixtures.bytes(name)
        let whole = try Self.decode(bytes)
        #expect(try Self.decode(bytes, chunkSize: 1) == whole)
        #expect(try Self.decode(bytes, chunkSize: 4099) == whole)
    }

    @Test(arguments: ["vorbis-q3.ogg", "opus-64k.opus", "opus-mono-24k.opus"], [PCMFormat.SampleType.signed16, .float32])
    func steadyStateDecodingAllocatesNothing(_ name: String, _ sampleType: PCMFormat.SampleType) throws {
        let stream = try ParsedStream(OggFixtures.bytes(name))
        let decoder = try AudioDecoders.make(for: stream.format, sampleType: sampleType)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        func decode(_ range: Range<Int>) throws {
            for i in range {
                try stream.contents[i].withUnsafeBytes { _ = try decoder.decode($0, packet: stream.packets[i], into: buffer) }
                buffer.removeAll()
            }
        }
        try decode(0..<20)
        let before = slipstream_thread_allocation_count()
        try decode(20..<stream.packets.count)
        let allocations = slipstream_thread_allocation_count() - before
        #expect(allocations == 0, "\(allocations) allocations over \(stream.packets.count - 20) packets")
    }

    @Test(arguments: ["vorbis-q3.ogg", "vorbis-5.1.ogg", "opus-64k.opus", "opus-5.1.opus"])
    func float32FollowsSigned16(_ name: String) throws {
        let stream = try ParsedStream(OggFixtures.bytes(name))
        let integers = try stream.decodeRaw()
        let floats = try stream.decodeRaw(sampleType: .float32)
        #expect(floats.count == integers.count * 2)
        let converted = floats.withUnsafeBytes { raw in
            raw.bindMemory(to: Float.self).map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        }
        let step = largestStep(converted.withUnsafeBytes { Array($0) }, integers)
        #expect(step <= 1, "\(name): \(step)")
    }

    @Test func afterResetEachPacketKeepsItsLength() throws {
        // After a reset (a seek) each packet still gives the frames the parser counted.
        for name in ["vorbis-q3.ogg", "opus-64k.opus"] {
            let stream = try ParsedStream(OggFixtures.bytes(name))
            let decoder = try AudioDecoders.make(for: stream.format)
            _ = try stream.decode(0..<30, with: decoder)
            decoder.reset()
            _ = try stream.decode(60..<stream.packets.count, with: decoder)
        }
    }
}
