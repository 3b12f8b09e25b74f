/// The CRC-32 of Ogg pages: polynomial 0x04C11DB7, not reflected, initial value 0, no final
/// XOR, computed over the whole page with its checksum field read as zero (RFC 3533).
enum OggCRC {
    /// The checksum of the page in `page` (header, segment table and body), whose checksum
    /// field (bytes 22..<26) is taken as zero.
    static func checksum(ofPage page: UnsafeRawBufferPointer) -> UInt32 {
        let field = min(22, page.count)..<min(26, page.count)
        var crc = update(0, UnsafeRawBufferPointer(rebasing: page[..<field.lowerBound]))
        crc = zeros(crc, count: field.count)
        return update(crc, UnsafeRawBufferPointer(rebasing: page[field.upperBound...]))
    }

    /// `crc` continued over `bytes`: eight bytes a step (slicing-by-8: the CRC is linear, so
    /// the contributions of the eight bytes, each from its own table, are XORed; a byte at a
    /// time took half of `info --exact`'s time on an Ogg Vorbis file), then the rest a byte
    /// at a time.
    private static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        slices.withUnsafeBufferPointer { t in
            var crc = crc
            var i = 0
            let count = bytes.count
            while i + 8 <= count {
                let word = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let high = UInt32(truncatingIfNeeded: word >> 32) ^ crc
                let low = UInt32(truncatingIfNeeded: word)
                crc =
                    t[7 << 8 | Int(high >> 24)] ^ t[6 << 8 | Int(high >> 16 & 0xFF)] ^ t[5 << 8 | Int(high >> 8 & 0xFF)]
                    ^ t[4 << 8 | Int(high & 0xFF)] ^ t[3 << 8 | Int(low >> 24)] ^ t[2 << 8 | Int(low >> 16 & 0xFF)]
                    ^ t[1 << 8 | Int(low >> 8 & 0xFF)] ^ t[Int(low & 0xFF)]
                i += 8
            }
            while i < count {
                crc = crc << 8 ^ t[Int(UInt8(truncatingIfNeeded: crc >> 24) ^ bytes[i])]
                i += 1
            }
            return crc
        }
    }

    /// `crc` continued over `count` zero bytes.
    private static func zeros(_ crc: UInt32, count: Int) -> UInt32 {
        var crc = crc
        for _ in 0..<count { crc = crc << 8 ^ slices[Int(crc >> 24)] }
        return crc
    }

    /// Eight tables of 256: table k holds the CRC of a byte followed by k zero bytes, so table
    /// 0 adds a byte as `crc << 8 ^ table0[crc >> 24 ^ byte]`.
    private static let slices: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var remainder = UInt32(index) << 24
            for _ in 0..<8 { remainder = remainder & 0x8000_0000 != 0 ? remainder << 1 ^ 0x04C1_1DB7 : remainder << 1 }
            tables[index] = remainder
        }
        for k in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(k - 1) << 8 | index]
                tables[k << 8 | index] = previous << 8 ^ tables[Int(previous >> 24)]
            }
        }
        return tables
    }()
}
