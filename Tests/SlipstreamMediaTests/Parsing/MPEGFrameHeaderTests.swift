import Testing
@testable import SlipstreamMedia

@Suite struct MPEGFrameHeaderTests {
    struct Case: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var description: String
        var layer: Int, bitRate: Int, sampleRate: Int, size: Int?, samples: Int, channels: Int, crc: Bool
    }

    static let cases: [Case] = [
        Case(
            bytes: [0xFF, 0xFB, 0x90, 0x64], description: "MPEG-1 L3 128k 44.1k", layer: 3, bitRate: 128, sampleRate: 44100, size: 417,
            samples: 1152, channels: 2, crc: false),
        Case(
            bytes: [0xFF, 0xFB, 0x92, 0x64], description: "padded", layer: 3, bitRate: 128, sampleRate: 44100, size: 418, samples: 1152,
            channels: 2, crc: false),
        Case(
            bytes: [0xFF, 0xFA, 0x94, 0xC4], description: "CRC, 48k, mono", layer: 3, bitRate: 128, sampleRate: 48000, size: 384,
            samples: 1152, channels: 1, crc: true),
        Case(
            bytes: [0xFF, 0xF3, 0x80, 0xC4], description: "MPEG-2 L3 64k 22.05k", layer: 3, bitRate: 64, sampleRate: 22050, size: 208,
            samples: 576, channels: 1, crc: false),
        Case(
            bytes: [0xFF, 0xE3, 0x28, 0x44], description: "MPEG-2.5 L3 16k 8k", layer: 3, bitRate: 16, sampleRate: 8000, size: 144,
            samples: 576, channels: 2, crc: false),
        Case(
            bytes: [0xFF, 0xFD, 0xA0, 0x04], description: "MPEG-1 L2 192k", layer: 2, bitRate: 192, sampleRate: 44100, size: 626,
            samples: 1152, channels: 2, crc: false),
        Case(
            bytes: [0xFF, 0xFF, 0x40, 0x04], description: "MPEG-1 L1 128k", layer: 1, bitRate: 128, sampleRate: 44100, size: 136,
            samples: 384, channels: 2, crc: false),
        Case(
            bytes: [0xFF, 0xFB, 0x00, 0x04], description: "free format", layer: 3, bitRate: 0, sampleRate: 44100, size: nil, samples: 1152,
            channels: 2, crc: false),
    ]

    @Test(arguments: cases)
    func parsesFields(_ c: Case) throws {
        let header = try #require(c.bytes.withUnsafeBytes { MPEGFrameHeader($0, at: 0) })
        #expect(header.layer == c.layer)
        #expect(header.bitRate == c.bitRate)
        #expect(header.sampleRate == c.sampleRate)
        #expect(header.frameSize == c.size)
        #expect(header.samplesPerFrame == c.samples)
        #expect(header.channels == c.channels)
        #expect(header.hasCRC == c.crc)
    }

    @Test(
        arguments: [
            [0xFF, 0xEB, 0x90, 0x64],  // version 01
            [0xFF, 0xF9, 0x90, 0x64],  // layer 00
            [0xFF, 0xFB, 0xF0, 0x64],  // bit rate index 15
            [0xFF, 0xFB, 0x9C, 0x64],  // sample rate index 3
            [0xFF, 0xFB, 0x90, 0x66],  // emphasis 10
            [0xFF, 0x1B, 0x90, 0x64],  // no sync
        ] as [[UInt8]])
    func rejectsReservedValues(_ bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { MPEGFrameHeader($0, at: 0) } == nil)
    }

    @Test func everyHeaderValueIsSafe() throws {
        // Every second and third header byte, as a stream of repeated headers: no crash, no hang.
        for b1 in 0xE0...0xFF {
            for b2 in stride(from: 0, through: 255, by: 1) {
                let stream = [[UInt8]](repeating: [0xFF, UInt8(b1), UInt8(b2), 0x44], count: 8).flatMap { $0 }
                var parser = AudioStreamParser()
                _ = try? parser.parse(stream)
                _ = try? parser.finish()
            }
        }
    }
}
