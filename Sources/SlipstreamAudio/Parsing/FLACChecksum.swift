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

    /// CRC-16 of `bytes`, continuing from `crc`.
    static func crc16(_ bytes: UnsafeRawBufferPointer, from crc: UInt16 = 0) -> UInt16 {
        var crc = crc
        for byte in bytes { crc = crc << 8 ^ crc16Table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }

    /// The CRC-16 table: `crc << 8 ^ table[crc >> 8 ^ byte]` adds a byte.
    static let crc16Table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x8005 : crc << 1 }
        return crc
    }

    private static let crc8Table: [UInt8] = (0..<256).map { index in
        var crc = UInt8(index)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
        return crc
    }
}
