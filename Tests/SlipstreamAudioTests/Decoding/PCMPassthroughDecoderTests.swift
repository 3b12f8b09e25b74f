import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// PCMPassthroughDecoder on every WAV fixture against ffmpeg and sox.
@Suite(.serialized, .enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct PCMPassthroughDecoderTests {
    static let fixtures = AudioFixtures.references.filter { $0.kind == "wav" }.map(\.name)

    static func path(_ name: String) throws -> String {
        try #require(AudioFixtures.directory).appendingPathComponent(name).path
    }

    /// To 16 bits: identical to ffmpeg for every layout (but RIFX, which ffmpeg 5.1 reads as
    /// little-endian), identical to sox for 16-bit sources and within one step of it for the
    /// others (sox rounds where ffmpeg and we truncate).
    @Test(arguments: fixtures)
    func signed16MatchesFFmpegAndSox(_ name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let ours = try stream.decodeTrimmed()
        if try stream.format.pcm?.isBigEndian == false {
            let ffmpeg = try await ReferenceDecoder.ffmpeg(Self.path(name))
            let same = ours == ffmpeg
            #expect(same, "\(firstDifference(ours, ffmpeg, frameBytes: 2))")
        }
        let sox = try await ReferenceDecoder.sox(Self.path(name))
        if try stream.format.pcm?.bitsPerSample == 16 {
            let same = ours == sox
            #expect(same, "\(firstDifference(ours, sox, frameBytes: 2))")
        } else {
            #expect(largestStep(ours, sox) <= 1, "\(firstDifference(ours, sox, frameBytes: 2))")
        }
    }

    @Test(arguments: fixtures)
    func float32MatchesSox(_ name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let ours = try stream.decodeTrimmed(sampleType: .float32)
        let sox = try await ReferenceDecoder.sox(Self.path(name), float: true)
        #expect(largestFloatStep(ours, sox) <= 1e-6, "\(firstDifference(ours, sox, frameBytes: 4))")
    }

    /// Layouts the fixtures lack: 64-bit floats, big-endian 24 and 32 bits, clipping.
    @Test func everyLayoutConverts() throws {
        func decode(
            _ bytes: [UInt8], bits: Int, float: Bool = false, bigEndian: Bool = false, unsigned: Bool = false,
            as sampleType: PCMFormat.SampleType = .signed16
        ) throws -> [UInt8] {
            let layout = AudioFormat.PCMLayout(
                bitsPerSample: bits, bytesPerFrame: bits / 8, isFloat: float, isBigEndian: bigEndian, isUnsigned: unsigned)
            let format = AudioFormat(
                codec: .pcm, codecDescription: "PCM", sampleRate: 8000, channels: 1, framesPerPacket: 1024, pcm: layout)
            let decoder = try AudioDecoders.make(for: format, sampleType: sampleType)
            let buffer = PCMBuffer(format: decoder.outputFormat)
            let packet = AudioPacket(offset: 0, size: bytes.count, frameCount: bytes.count / (bits / 8), startFrame: 0, startTime: 0)
            try bytes.withUnsafeBytes { _ = try decoder.decode($0, packet: packet, into: buffer) }
            return Array(buffer.bytes)
        }
        func s16(_ values: [Int16]) -> [UInt8] { values.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } }
        func f64(_ values: [Double]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) } }
        #expect(try decode(f64([0.5, -1, 2, -2, 1.0 / 65536]), bits: 64, float: true) == s16([16384, -32768, 32767, -32768, 0]))
        #expect(try decode([0x12, 0x34, 0x56, 0xFF, 0xFF, 0xFF], bits: 24, bigEndian: true) == s16([0x1234, -1]))
        #expect(try decode([0x80, 0, 0, 1, 0x7F, 0xFF, 0xFF, 0xFF], bits: 32, bigEndian: true) == s16([-32768, 32767]))
        #expect(try decode([0, 128, 255], bits: 8, unsigned: true) == s16([-32768, 0, 127 << 8]))
        #expect(try decode([0, 128, 255], bits: 8) == s16([0, -32768, -256]))
        let eightBitFloats: [Float] = [-1, 127.0 / 128]
        #expect(try decode([0x80, 0x7F], bits: 8, as: .float32) == eightBitFloats.withUnsafeBytes { Array($0) })
        let floats = try decode([0, 0x40], bits: 16, as: .float32)
        #expect(floats == withUnsafeBytes(of: Float(0.5), Array.init))
    }

    /// A packet shorter than its frame count is padded with silence, never read past.
    @Test func shortPacketsArePaddedWithSilence() throws {
        let layout = AudioFormat.PCMLayout(bitsPerSample: 16, bytesPerFrame: 4, isFloat: false, isBigEndian: false)
        let format = AudioFormat(codec: .pcm, codecDescription: "PCM", sampleRate: 8000, channels: 2, framesPerPacket: 1024, pcm: layout)
        let decoder = try AudioDecoders.make(for: format)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        let packet = AudioPacket(offset: 0, size: 1024 * 4, frameCount: 1024, startFrame: 0, startTime: 0)
        try [UInt8](repeating: 1, count: 7).withUnsafeBytes { _ = try decoder.decode($0, packet: packet, into: buffer) }
        #expect(buffer.frameCount == 1024)
        #expect(Array(buffer.bytes.prefix(8)) == [1, 1, 1, 1, 1, 1, 0, 0])
    }
}
