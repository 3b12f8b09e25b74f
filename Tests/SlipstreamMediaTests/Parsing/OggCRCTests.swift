import SlipstreamCore
import Testing

@testable import SlipstreamMedia

/// The Ogg page CRC against the published check value and a bit-at-a-time reference.
@Suite struct OggCRCTests {
    /// CRC-32/CKSUM's check value for "123456789" is 0x765E7680: the same CRC, inverted at the end.
    @Test func checkValue() {
        let crc = Array("123456789".utf8).withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
        #expect(crc == ~0x765E_7680)
    }

    /// Every length from 0 to 80 (both sides of the checksum field).
    @Test func everyLengthMatchesABitwiseCRC() {
        var random = SplitMix64(seed: 15)
        for count in 0...80 {
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var expected: UInt32 = 0
            for (i, byte) in bytes.enumerated() {
                expected ^= UInt32((22..<26).contains(i) ? 0 : byte) << 24
                for _ in 0..<8 { expected = expected & 0x8000_0000 != 0 ? expected << 1 ^ 0x04C1_1DB7 : expected << 1 }
            }
            let crc = bytes.withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
            #expect(crc == expected, "\(count) bytes")
        }
    }
}
