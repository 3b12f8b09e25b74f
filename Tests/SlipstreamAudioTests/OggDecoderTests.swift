import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Vorbis and Opus from Ogg, decoded by the own parser and libvorbis/libopus, against the
/// reference decoders: oggdec (libvorbisfile) and opusdec --no-dither at 48 kHz. The sample
/// count must be the same (gapless trimming by pre-skip and granule position), the samples
/// within a few LSB.
@Suite struct OggDecoderTests {
    /// The whole stream through `StreamDecoding`, as 16-bit PCM.
    static func decode(_ bytes: [UInt8], chunkSize: Int = 64 << 10) throws -> [UInt8] {
        var pcm: [UInt8] = []
        _ = try bytes.withUnsafeBytes { raw in
            try StreamDecoding.decode(raw, chunkSize: chunkSize) { pcm += $0.bytes }
        }
        return pcm
    }

    @Test(arguments: OggFixtures.vorbis + OggFixtures.opus)
    func matchesTheReferenceDecoder(_ name: String) throws {
        let bytes = try OggFixtures.bytes(name)
        let ours = try Self.decode(bytes)
        let reference = try OggFixtures.reference(name)
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
}
