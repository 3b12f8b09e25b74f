/// The checksums of FLAC frames: CRC-8 (polynomial 0x07, initial 0) over a frame header, CRC-16
/// (polynomial 0x8005, initial 0) over a whole frame, both most significant bit first. Run over
/// bytes that end with their own CRC, each gives 0.
package enum FLACChecksum {
    /// CRC-8 of `bytes`, continuing from `crc`.
    package static func crc8(_ bytes: UnsafeRawBufferPointer, from crc: UInt8 = 0) -> UInt8 {
        var crc = crc
        for byte in bytes { crc = crc8Table[Int(crc ^ byte)] }
        return crc
    }

    /// CRC-16 of `bytes`, continuing from `crc`.
    package static func crc16(_ bytes: UnsafeRawBufferPointer, from crc: UInt16 = 0) -> UInt16 {
        UInt16(truncatingIfNeeded: crc16Sum.update(UInt32(crc), bytes))
    }

    private static let crc16Sum = MSBFirstCRC(width: 16, polynomial: 0x8005)

    private static let crc8Table: [UInt8] = (0..<256).map { index in
        var crc = UInt8(index)
        for _ in 0..<8 { crc = crc & 0x80 != 0 ? crc << 1 ^ 0x07 : crc << 1 }
        return crc
    }
}
