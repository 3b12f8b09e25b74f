/// The checksums of FLAC frames: CRC-8 (polynomial 0x07, initial 0) over a frame header, CRC-16
/// (polynomial 0x8005, initial 0) over a whole frame, both most significant bit first. Run over
/// bytes that end with their own CRC, each gives 0.
enum FLACChecksum {
    /// CRC-8 of `bytes`, continuing from `crc`.
    static func crc8(_ bytes: UnsafeRawBufferPointer, from crc: UInt8 = 0) -> UInt8 {
        var crc = crc
        for byte in bytes { crc = crc8Table[Int(crc ^ byte)] }
        return crc
    }

    /// CRC-16 of `bytes`, continuing from `crc`: eight bytes a step (slicing-by-8: the CRC is
    /// linear, so the eight bytes' contributions, each from its own table, are XORed), then the
    /// rest a byte at a time.
    static func crc16(_ bytes: UnsafeRawBufferPointer, from crc: UInt16 = 0) -> UInt16 {
        crc16Slices.withUnsafeBufferPointer { t in
            var crc = crc
            var i = 0
            while i + 8 <= bytes.count {
                let high = Int(bytes[i] ^ UInt8(truncatingIfNeeded: crc >> 8))
                let low = Int(bytes[i + 1] ^ UInt8(truncatingIfNeeded: crc))
                crc =
                    t[7 << 8 | high] ^ t[6 << 8 | low] ^ t[5 << 8 | Int(bytes[i + 2])] ^ t[4 << 8 | Int(bytes[i + 3])]
                    ^ t[3 << 8 | Int(bytes[i + 4])] ^ t[2 << 8 | Int(bytes[i + 5])] ^ t[1 << 8 | Int(bytes[i + 6])]
                    ^ t[Int(bytes[i + 7])]
                i += 8
            }
            while i < bytes.count {
                crc = crc << 8 ^ t[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ bytes[i])]
                i += 1
            }
            return crc
        }
    }

    /// Eight tables of 256: table k holds the CRC-16 of a byte followed by k zero bytes, so
    /// table 0 adds a byte as `crc << 8 ^ table0[crc >> 8 ^ byte]`.
    private static let crc16Slices: [UInt16] = {
        var tables = [UInt16](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt16(index) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x8005 : crc << 1 }
            tables[index] = crc
        }
        for k in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(k - 1) << 8 | index]
                tables[k << 8 | index] = previous << 8 ^ tables[Int(previous >> 8)]
            }
        }
        return tables
    }()

    private static let crc8Table: [UInt8] = (0..<256).map { index in
        var crc = UInt8(index)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
        return crc
    }
}
