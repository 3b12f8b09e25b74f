import CCarrylessCRC

/// A cyclic redundancy check of up to 32 bits taken most significant bit first (not
/// reflected), from a given initial value and with no final XOR: FLAC's CRC-16 and Ogg's
/// CRC-32. Run over bytes that end with their own CRC, it gives 0.
///
/// Long runs are folded sixteen bytes a step with the CPU's carry-less multiply where it has one
/// (`CCarrylessCRC`); the rest goes eight bytes a step through sliced tables (the CRC is linear,
/// so the eight bytes' contributions, each from its own table, are XORed), then a byte at a
/// time. A CRC narrower than 32 bits is computed in the top bits of a 32-bit register.
package struct MSBFirstCRC: Sendable {
    /// Runs shorter than this many bytes skip the folding, whose setup costs more than it saves.
    package static let minimumFoldedCount = 64
    /// Whether this CPU folds.
    private static let canFold = slipstream_crc_fold_available() != 0

    package let width: Int
    /// Eight tables of 256, for the polynomial in the top `width` bits: table k holds the CRC of
    /// a byte followed by k zero bytes, so table 0 adds a byte as `crc << 8 ^ t0[crc >> 24 ^ byte]`.
    private let slices: [UInt32]
    /// x^n mod P for n = 128, 192, ..., 576: the folding's multipliers.
    private let foldConstants: [UInt64]

    /// The CRC of `width` bits (8 to 32) whose polynomial, without its x^width term, is
    /// `polynomial`.
    package init(width: Int, polynomial: UInt32) {
        precondition((8...32).contains(width))
        self.width = width
        let top = polynomial << (32 - width)
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var remainder = UInt32(index) << 24
            for _ in 0..<8 { remainder = remainder & 0x8000_0000 != 0 ? remainder << 1 ^ top : remainder << 1 }
            tables[index] = remainder
        }
        for k in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(k - 1) << 8 | index]
                tables[k << 8 | index] = previous << 8 ^ tables[Int(previous >> 24)]
            }
        }
        slices = tables
        foldConstants = stride(from: 128, through: 576, by: 64).map { Self.power($0, width: width, polynomial: polynomial) }
    }

    /// `crc` continued over `bytes`.
    package func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let shift = UInt32(32 - width)
        var register = crc << shift
        var rest = bytes
        if Self.canFold, bytes.count >= Self.minimumFoldedCount, let base = bytes.baseAddress {
            let blocks = bytes.count / 16
            var residue: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &residue) { residueBytes in
                foldConstants.withUnsafeBufferPointer { constants in
                    slipstream_crc_fold(
                        base.assumingMemoryBound(to: UInt8.self), blocks, crc, UInt32(width), constants.baseAddress,
                        residueBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            register = withUnsafeBytes(of: &residue) { sliced(0, $0) }
            rest = UnsafeRawBufferPointer(rebasing: bytes[(blocks * 16)...])
        }
        return sliced(register, rest) >> shift
    }

    /// `crc` continued over `count` zero bytes.
    package func zeros(_ crc: UInt32, count: Int) -> UInt32 {
        let shift = UInt32(32 - width)
        var register = crc << shift
        for _ in 0..<count { register = register << 8 ^ slices[Int(register >> 24)] }
        return register >> shift
    }

    /// The register continued over `bytes` through the tables.
    private func sliced(_ register: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        slices.withUnsafeBufferPointer { t in
            var crc = register
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

    /// x^n mod P, P being x^width plus `polynomial`.
    private static func power(_ n: Int, width: Int, polynomial: UInt32) -> UInt64 {
        let high = UInt64(1) << width
        var remainder: UInt64 = 1
        for _ in 0..<n {
            remainder <<= 1
            if remainder & high != 0 { remainder ^= high | UInt64(polynomial) }
        }
        return remainder
    }
}
