import SlipstreamCore
import Testing

@testable import SlipstreamMedia

@Suite struct FLACChecksumTests {
    /// A block with its own CRC-16 appended checks to 0, at every length.
    @Test func aBlockWithItsCRC16ChecksToZero() {
        var random = SplitMix64(seed: 16)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let crc = bytes.withUnsafeBytes { FLACChecksum.crc16($0) }
            let checked = bytes + [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            #expect(checked.withUnsafeBytes { FLACChecksum.crc16($0) } == 0, "length \(length)")
        }
    }
}
