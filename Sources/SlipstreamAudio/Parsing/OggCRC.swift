/// The CRC-32 of Ogg pages: polynomial 0x04C11DB7, not reflected, initial value 0, no final
/// XOR, computed over the whole page with its checksum field read as zero (RFC 3533).
enum OggCRC {
    /// The remainders of every byte value, most significant bit first.
    private static let table: [UInt32] = (0..<256).map { byte in
        var remainder = UInt32(byte) << 24
        for _ in 0..<8 { remainder = remainder & 0x8000_0000 != 0 ? remainder << 1 ^ 0x04C1_1DB7 : remainder << 1 }
        return remainder
    }

    /// The checksum of the page in `page` (header, segment table and body), whose checksum
    /// field (bytes 22..<26) is taken as zero.
    static func checksum(ofPage page: UnsafeRawBufferPointer) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0
            for i in 0..<page.count {
                let byte = (22..<26).contains(i) ? 0 : page[i]
                crc = crc << 8 ^ table[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ byte)]
            }
            return crc
        }
    }
}
