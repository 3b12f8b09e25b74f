import Testing
import TestSupport
@testable import SlipstreamAudio

/// The one decoder factory: each format goes to its decoder, and a decoder given a packet of
/// another format makes silence instead of feeding it to its C library.
struct AudioDecodersTests {
    static func format(_ codec: AudioFormat.Codec, rate: Int = 44100, channels: Int = 2) -> AudioFormat {
        let pcm =
            codec == .pcm ? AudioFormat.PCMLayout(bitsPerSample: 16, bytesPerFrame: 2 * channels, isFloat: false, isBigEndian: false) : nil
        return AudioFormat(
            codec: codec, codecDescription: "\(codec)", sampleRate: rate, channels: channels,
            framesPerPacket: codec == .aac ? 1024 : 1152, pcm: pcm)
    }

    @Test func eachCodecGoesToItsDecoder() throws {
        #expect(try AudioDecoders.make(for: Self.format(.mp3)) is MP3Decoder)
        #expect(try AudioDecoders.make(for: Self.format(.mp2)) is MP3Decoder)
        #expect(try AudioDecoders.make(for: Self.format(.aac)) is AACDecoder)
        #expect(try AudioDecoders.make(for: Self.format(.pcm)) is PCMPassthroughDecoder)
        let decoder = try AudioDecoders.make(for: Self.format(.mp3, rate: 22050, channels: 1), sampleType: .float32)
        #expect(decoder.outputFormat == PCMFormat(sampleRate: 22050, channels: 1, sampleType: .float32))
    }

    @Test func aVariantTheDecoderRefusesIsAnUnsupportedFormat() {
        #expect(throws: AudioDecoderError.self) { try AudioDecoders.make(for: Self.format(.mp3, channels: 6)) }
        do {
            _ = try AudioDecoders.make(for: Self.format(.aac, channels: 9))
            Issue.record("AAC with 9 channels was taken")
        } catch {
            #expect(error.code == .unsupportedFormat)
            #expect(error.codec == "aac")
        }
    }

    /// A 44.1 kHz stereo decoder given a 22.05 kHz mono frame: the frame's length in silence.
    @Test(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
    func aFrameOfAnotherFormatIsSilence() throws {
        let stereo = try ParsedStream(AudioFixtures.bytes("mp3-cbr128.mp3"))
        let mono = try ParsedStream(AudioFixtures.bytes("mp3-mpeg2-16000-mono.mp3"))
        let decoder = try AudioDecoders.make(for: stereo.format)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        for i in 0..<8 {
            try stereo.contents[i].withUnsafeBytes { _ = try decoder.decode($0, packet: stereo.packets[i], into: buffer) }
        }
        buffer.removeAll()
        let packet = mono.packets[10]
        try mono.contents[10].withUnsafeBytes { _ = try decoder.decode($0, packet: packet, into: buffer) }
        #expect(buffer.frameCount == packet.frameCount)
        #expect(buffer.bytes.allSatisfy { $0 == 0 })
        // The stream's own frames decode on as before.
        buffer.removeAll()
        try stereo.contents[8].withUnsafeBytes { _ = try decoder.decode($0, packet: stereo.packets[8], into: buffer) }
        #expect(buffer.bytes.contains { $0 != 0 })
    }
}
