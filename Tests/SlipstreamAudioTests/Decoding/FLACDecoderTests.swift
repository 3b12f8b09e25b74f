import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// libFLAC fed the parser's frames gives what `flac -d` gives, bit for bit, and every sample.
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct FLACDecoderTests {
    /// `flac -d` of fixture `name`: its WAV's PCM (little-endian, the file's own sample size).
    static func reference(_ name: String) async throws -> [UInt8] {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await ExternalProgram.run(["flac", "-d", "-s", "-f", "-o", folder + "/out.wav", try AudioFixtures.path(name)])
        return try ReferenceDecoder.wavData(folder + "/out.wav")
    }

    /// `reference` (little-endian samples of `bits` bits) as our decoder's 16-bit output: the top
    /// 16 bits of each sample.
    static func top16(_ reference: [UInt8], bits: Int) -> [UInt8] {
        let width = bits / 8
        guard width > 2 else { return reference }
        var out: [UInt8] = []
        out.reserveCapacity(reference.count / width * 2)
        for i in stride(from: 0, to: reference.count, by: width) {
            out.append(reference[i + width - 2])
            out.append(reference[i + width - 1])
        }
        return out
    }

    @Test(arguments: FixtureFacts.flacFixtures)
    func bitExactWithFlacD(name: String) async throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let bits = Int(try await FixtureFacts.metaflac(name, "bps"))
        let reference = try await Self.reference(name)
        let decoded = try stream.decodeTrimmed()
        #expect(decoded.count == reference.count / (bits / 8) * 2)
        #expect(Bool(decoded == Self.top16(reference, bits: bits)))

        // Floats: each sample exactly the reference's over 2^(bits-1).
        let floats = try stream.decodeTrimmed(sampleType: .float32)
        let width = bits / 8
        #expect(floats.count / 4 == reference.count / width)
        let exact = floats.withUnsafeBytes { raw in
            let values = raw.bindMemory(to: Float.self)
            return values.indices.allSatisfy { i in
                var sample: Int32 = 0
                for b in 0..<width { sample |= Int32(reference[i * width + b]) << (8 * b) }
                sample = (sample << (32 - bits)) >> (32 - bits)
                return values[i] == Float(sample) / Float(1 << (bits - 1))
            }
        }
        #expect(exact)
    }

    @Test func afterAResetAFrameDecodesAsFromTheStart() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("flac-16-seektable.flac"))
        let decoder = try AudioDecoders.make(for: stream.format)
        #expect(decoder.primingPacketCount == 0 && decoder.decoderDelay == 0)
        let whole = try stream.decode(0..<stream.packets.count, with: decoder)
        decoder.reset()
        let tail = try stream.decode(20..<stream.packets.count, with: decoder)
        let start = Int(try #require(stream.packets[20].startFrame)) * 4
        #expect(Bool(tail == Array(whole[start...])))
    }

    @Test func aDamagedOrCutFrameKeepsTheCountAndTheNextFrameIsExact() throws {
        let stream = try ParsedStream(AudioFixtures.bytes("flac-24-mono.flac"))
        let decoder = try AudioDecoders.make(for: stream.format)
        let reference = try stream.decode(0..<stream.packets.count, with: decoder)
        decoder.reset()
        var damaged = stream
        damaged.contents[5][damaged.contents[5].count / 2] ^= 0x40
        damaged.contents[9] = Array(damaged.contents[9].prefix(damaged.contents[9].count / 2))
        let decoded = try damaged.decode(0..<stream.packets.count, with: decoder)
        #expect(decoded.count == reference.count)
        let frameBytes = 2
        for i in [6, 10, 20] {
            let range = Int(stream.packets[i].startFrame!) * frameBytes..<Int(stream.packets[i + 1].startFrame!) * frameBytes
            #expect(Bool(decoded[range] == reference[range]), "packet \(i)")
        }
    }

    @Test func aCookieThatIsNotStreamInfoIsRefused() {
        let format = AudioFormat(codec: .flac, codecDescription: "FLAC 16-bit", sampleRate: 44100, channels: 2, framesPerPacket: 4096)
        #expect(throws: AudioDecoderError.self) { try AudioDecoders.make(for: format) }
    }
}
