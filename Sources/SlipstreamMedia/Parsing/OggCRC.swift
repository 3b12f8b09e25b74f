/// The CRC-32 of Ogg pages: polynomial 0x04C11DB7, not reflected, initial value 0, no final
/// XOR, computed over the whole page with its checksum field read as zero (RFC 3533).
package enum OggCRC {
    /// The checksum of the page in `page` (header, segment table and body), whose checksum
    /// field (bytes 22..<26) is taken as zero.
    package static func checksum(ofPage page: UnsafeRawBufferPointer) -> UInt32 {
        let field = min(22, page.count)..<min(26, page.count)
        var crc = sum.update(0, UnsafeRawBufferPointer(rebasing: page[..<field.lowerBound]))
        crc = sum.zeros(crc, count: field.count)
        return sum.update(crc, UnsafeRawBufferPointer(rebasing: page[field.upperBound...]))
    }

    private static let sum = MSBFirstCRC(width: 32, polynomial: 0x04C1_1DB7)
}
