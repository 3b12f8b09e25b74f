import SlipstreamCore
import Testing

@testable import SlipstreamMedia

/// The CRC behind FLAC's frames and Ogg's pages against its definition, a bit at a time: every
/// path (a byte at a time, eight bytes a step, folded sixteen bytes a step in one lane and in
/// four) at every length around their thresholds, from any starting value and any alignment.
@Suite struct MSBFirstCRCTests {
    /// The CRC by its definition.
    static func definition(_ bytes: some Sequence<UInt8>, width: Int, polynomial: UInt32, from start: UInt32) -> UInt32 {
        let top = UInt64(1) << (width - 1), mask = (UInt64(1) << width) - 1
        var crc = UInt64(start)
        for byte in bytes {
            crc ^= UInt64(byte) << (width - 8)
            for _ in 0..<8 { crc = (crc & top != 0 ? crc << 1 ^ UInt64(polynomial) : crc << 1) & mask }
        }
        return UInt32(crc)
    }

    @Test(arguments: [(16, UInt32(0x8005)), (32, 0x04C1_1DB7), (24, 0x86_4CFB)])
    func everyLengthAndAlignmentMatchesTheDefinition(width: Int, polynomial: UInt32) {
        let sum = MSBFirstCRC(width: width, polynomial: polynomial)
        var random = SplitMix64(seed: UInt64(width))
        let bytes = (0..<1200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let mask = UInt32((UInt64(1) << width) - 1)
        for count in Array(0...300) + [511, 512, 513, 1000, 1100] {
            let offset = Int(random.next() % 17)
            let start = UInt32(truncatingIfNeeded: random.next()) & mask
            let piece = bytes[offset..<offset + count]
            let crc = piece.withUnsafeBytes { sum.update(start, $0) }
            #expect(crc == Self.definition(piece, width: width, polynomial: polynomial, from: start), "\(count) bytes at \(offset)")
        }
    }

    /// Zero bytes continue a CRC as the definition does.
    @Test func zeros() {
        let sum = MSBFirstCRC(width: 32, polynomial: 0x04C1_1DB7)
        let expected = Self.definition([0, 0, 0, 0, 0], width: 32, polynomial: 0x04C1_1DB7, from: 0x1234_5678)
        #expect(sum.zeros(0x1234_5678, count: 5) == expected)
    }
}
