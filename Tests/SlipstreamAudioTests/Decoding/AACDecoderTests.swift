import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// AACDecoder (libfaad2) on every ADTS fixture against ffmpeg's own AAC decoder.
///
/// The two decoders agree closely but not exactly: on the fixtures' left channel (a sine sweep)
/// the mean difference is under half a step, while bands the encoder coded as noise (perceptual
/// noise substitution: the pink noise in the right channel and in the mono mix) get each
/// decoder's own random noise, equal only in level. So the tests compare lengths, alignment and
/// per-packet levels, and the sweep sample by sample. libfaad2 gives nothing for the first frame
/// (ffmpeg outputs it), so packet 0 is silent in ours.
@Suite(.serialized, .enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct AACDecoderTests {
    static let fixtures = AudioFixtures.references.filter { $0.kind == "adts" }.map(\.name)
    /// The fixtures ffmpeg decodes at the rate we do: not those at a core rate of 24 kHz or less,
    /// which we decode at twice it, as libfaad2 does (for the SBR ADTS cannot signal), and ffmpeg
    /// at the core rate unless it finds SBR.
    static let coreRateFixtures = fixtures.filter { $0 != "aac-lc-22050-mono.aac" }

    static func path(_ name: String) throws -> String {
        try #require(AudioFixtures.directory).appendingPathComponent(name).path
    }

    /// Native 16-bit samples of channel `channel` of `channels`.
    static func channel(_ bytes: [UInt8], _ channel: Int, of channels: Int) -> [Int16] {
        bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.enumerated().compactMap {
            $0.offset % channels == channel ? $0.element : nil
        }
    }

    /// The RMS level of each 1024-frame packet, in dB relative to full scale.
    static func levels(_ samples: [Int16]) -> [Double] {
        stride(from: 0, to: samples.count - 1023, by: 1024).map { start in
            let power = samples[start..<start + 1024].reduce(0.0) { $0 + Double($1) * Double($1) } / 1024
            return 10 * log10(max(power, 1) / (32768 * 32768))
        }
    }

    @Test(arguments: coreRateFixtures)
    func matchesFFmpegInLengthAlignmentAndLevel(_ name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let channels = try stream.format.channels
        let ours = try stream.decodeTrimmed()
        let ffmpeg = try await ReferenceDecoder.ffmpeg(Self.path(name))
        #expect(ours.count == ffmpeg.count)
        #expect(ours.count == stream.packets.count * 1024 * channels * 2)
        #expect(Self.channel(ours, 0, of: channels).prefix(1024).allSatisfy { $0 == 0 })
        for c in 0..<channels {
            let a = Self.levels(Self.channel(ours, c, of: channels)), b = Self.levels(Self.channel(ffmpeg, c, of: channels))
            let worst = zip(a, b).dropFirst().map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 0.25, "channel \(c): packet levels differ by up to \(worst) dB")
        }
        if channels == 2 {
            let a = Self.channel(ours, 0, of: 2), b = Self.channel(ffmpeg, 0, of: 2)
            let mean = zip(a, b).dropFirst(1024).reduce(0.0) { $0 + Double(abs(Int($1.0) - Int($1.1))) } / Double(a.count - 1024)
            #expect(mean < 1, "left channel: mean difference \(mean) steps")
        }
    }

    /// At a core rate of 24 kHz or less, the stream is decoded at twice the rate and a mono core
    /// in stereo (parametric stereo, were it there), as `faad` does it, sample for sample; faad
    /// leaves out the first frame, which libfaad2 gives no audio for (ours is silent).
    @Test func aLowCoreRateIsDecodedAtTwiceItInStereoAsFaadDoes() async throws {
        let name = "aac-lc-22050-mono.aac"
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let format = try stream.format
        #expect(format.sampleRate == 44100 && format.channels == 2)
        #expect(format.codecDescription == "AAC LC (ADTS, MPEG-4, 22050 Hz mono core)")
        let ours = try stream.decodeTrimmed()
        #expect(ours.count == stream.packets.count * 2048 * 4)
        #expect(ours.prefix(2048 * 4).allSatisfy { $0 == 0 })
        let reference = try await MP4DecodingTests.faad(name)
        let played = Array(ours.dropFirst(2048 * 4))
        #expect(reference.count == played.count)
        let same = played == reference
        #expect(same, "differs from faad: \(largestStep(played, reference))")
    }

    @Test(arguments: fixtures)
    func float32FollowsSigned16(_ name: String) throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let integers = try stream.decodeTrimmed()
        let floats = try stream.decodeTrimmed(sampleType: .float32)
        // The integers are clipped at full scale; the floats are not (substituted noise can peak
        // past it).
        let clipped = floats.withUnsafeBytes { $0.bindMemory(to: Float.self).map { min(max($0, -1), 32767 / 32768) } }
        let scaled = integers.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { Float($0) / 32768 } }
        #expect(largestFloatStep(clipped.withUnsafeBytes { Array($0) }, scaled.withUnsafeBytes { Array($0) }) <= 1.01 / 32768)
    }

    /// After `reset()` and one packet of priming, the left channel (the sweep) comes out as in
    /// the decode from the start: exactly when restarting at the start; elsewhere with a mean
    /// difference under 0.2% of the signal's level (under a step in most packets), because the
    /// left channel carries some substituted noise through mid/side coding and the noise
    /// generator restarts with the decoder.
    @Test func primingAfterResetMatchesTheWholeDecode() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("aac-lc-128k.aac"))
        let whole = try stream.decodeRaw()
        let decoder = try AudioDecoders.make(for: stream.format)
        for k in [1, 2, 40, 77, stream.packets.count - 1] {
            decoder.reset()
            _ = try stream.decode(k - decoder.primingPacketCount..<k, with: decoder)
            let ours = try stream.decode(k..<min(k + 8, stream.packets.count), with: decoder)
            let start = k * 1024 * 4
            let expected = Array(whole[start..<start + ours.count])
            let a = Self.channel(ours, 0, of: 2), b = Self.channel(expected, 0, of: 2)
            let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
            let mean = Double(differences.reduce(0, +)) / Double(max(differences.count, 1))
            let level = (b.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(b.count, 1))).squareRoot()
            #expect(
                k == 1 ? differences.max() == 0 : mean < level / 500,
                "packet \(k): mean difference \(mean) steps (up to \(differences.max() ?? 0)) on a level of \(level)")
        }
    }

    /// Random bytes and truncated frames: every packet still gives its 1024 frames.
    @Test func corruptPacketsKeepTheirLength() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("aac-lc-128k.aac"))
        let decoder = try AudioDecoders.make(for: stream.format)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        var random = SplitMix64(seed: 5)
        for (i, packet) in stream.contents.enumerated() {
            var bytes = packet
            switch i % 4 {
            case 1: bytes = bytes.map { _ in UInt8.random(in: 0...255, using: &random) }
            case 2: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 3: bytes[Int.random(in: 7..<bytes.count, using: &random)] ^= 0xFF
            default: break
            }
            try bytes.withUnsafeBytes { _ = try decoder.decode($0, packet: stream.packets[i], into: buffer) }
            #expect(buffer.frameCount == 1024)
            buffer.removeAll()
        }
    }
}
