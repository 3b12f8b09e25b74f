import SlipstreamCore
import Testing

@testable import SlipstreamAudio

@Suite struct FLACChecksumTests {
    /// CRC-16 by its definition (polynomial 0x8005, most significant bit first), a bit at a time.
    static func definition(_ bytes: [UInt8], from start: UInt16 = 0) -> UInt16 {
        var crc = start
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x8005 : crc << 1 }
        }
        return crc
    }

    /// Eight bytes a step gives the definition's CRC for every length (the tail a byte at a
    /// time) and every starting CRC, and a block with its own CRC appended checks to 0.
    @Test func slicedCRC16EqualsTheDefinition() {
        var random = SplitMix64(seed: 16)
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let start = UInt16.random(in: 0...UInt16.max, using: &random)
            let sliced = bytes.withUnsafeBytes { FLACChecksum.crc16($0, from: start) }
            #expect(sliced == Self.definition(bytes, from: start), "length \(length)")
            let crc = bytes.withUnsafeBytes { FLACChecksum.crc16($0) }
            let checked = bytes + [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            #expect(checked.withUnsafeBytes { FLACChecksum.crc16($0) } == 0)
        }
    }
}
