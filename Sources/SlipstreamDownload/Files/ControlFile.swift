import SlipstreamCore

/// The resume record kept beside `FILE.part`: which remote file the bytes come from (URL,
/// size, validators) and which pieces are written. A pure value with a versioned, big-endian
/// binary encoding guarded by a CRC-32, so a truncated or corrupt record is detected, never
/// trusted.
///
/// Layout (all integers big-endian):
///
///     magic "SLIPCTRL" (8) | version UInt16 = 1 | boot id (16 bytes, zero for a durable record)
///     size Int64 | piece size UInt32 | URL, ETag, Last-Modified: each UInt16 length + UTF-8
///     piece bitmap: ceil(size / piece size) bits, first piece in the top bit of the first byte
///     CRC-32 (IEEE) of everything before it
package struct ControlFile: Sendable, Equatable {
    /// Why a record cannot be used.
    package struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, for a person.
        package var description: String
    }

    /// The version this code writes and reads.
    package static let version: UInt16 = 1
    private static let magic = Array("SLIPCTRL".utf8)

    /// The URL the download was started with, its password (if it had one) replaced by `***`:
    /// a record on disk holds no secret, and a password does not tell files apart.
    package var url: String {
        didSet { if url.contains("@") { url = url.redactingLogins } }
    }
    /// The remote file's size in bytes.
    package var size: Int64
    /// The strong entity tag the server gave, if any.
    package var etag: String?
    /// The `Last-Modified` the server gave, if any.
    package var lastModified: String?
    /// The piece size in bytes.
    package var pieceSize: Int64
    /// One bit per piece: set when every byte of the piece is written.
    package private(set) var bitmap: [UInt8]
    /// For a record written without fsync: the boot it is valid in (`/proc/sys/kernel/random/boot_id`
    /// as 16 bytes); all zero for a durable record, valid across reboots.
    package var bootID: [UInt8]

    /// A record with no piece written.
    package init(
        url: String, size: Int64, etag: String?, lastModified: String?, pieceSize: Int64 = 0,
        bootID: [UInt8] = [UInt8](repeating: 0, count: 16)
    ) {
        self.url = url.redactingLogins
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.pieceSize = pieceSize > 0 ? pieceSize : Self.pieceSize(for: size)
        self.bootID = bootID
        bitmap = [UInt8](repeating: 0, count: Int(Self.bitmapByteCount(size: size, pieceSize: self.pieceSize)))
    }

    /// The largest file a record can describe: 16 PiB (2^54 bytes). Its piece size, a power of
    /// two, is stored in 32 bits and at most 8 Mi pieces are kept: 2^31 is the largest piece
    /// that fits (a file past this size made a piece of 2^32, which trapped when encoded).
    package static let maxSize = Int64(1 << 31) * (8 << 20)

    /// 64 KiB, or larger for huge files so that the bitmap stays under 1 MiB.
    package static func pieceSize(for size: Int64) -> Int64 {
        var piece: Int64 = 64 << 10
        while size / piece > 8 << 20 { piece *= 2 }
        return piece
    }

    /// Whole pieces plus one for a remainder (no `size + pieceSize - 1`, which overflows for a
    /// size near `Int64.max`).
    private static func pieceCount(size: Int64, pieceSize: Int64) -> Int64 {
        size / pieceSize + (size % pieceSize == 0 ? 0 : 1)
    }

    /// The bytes of the bitmap of `size` bytes in pieces of `pieceSize`.
    private static func bitmapByteCount(size: Int64, pieceSize: Int64) -> Int64 {
        let pieces = pieceCount(size: size, pieceSize: pieceSize)
        return pieces / 8 + (pieces % 8 == 0 ? 0 : 1)
    }

    /// The number of pieces.
    package var pieceCount: Int64 { Self.pieceCount(size: size, pieceSize: pieceSize) }

    /// Marks as written every piece that lies wholly inside `written` (and clears the others).
    package mutating func record(_ written: ByteRanges) {
        bitmap = [UInt8](repeating: 0, count: bitmap.count)
        for range in written {
            var piece = (range.lowerBound + pieceSize - 1) / pieceSize
            while piece < pieceCount {
                let end = min((piece + 1) * pieceSize, size)
                guard end <= range.upperBound else { break }
                bitmap[Int(piece / 8)] |= 0x80 >> UInt8(piece % 8)
                piece += 1
            }
        }
    }

    /// The bytes of the written pieces.
    package var writtenRanges: ByteRanges {
        var ranges = ByteRanges()
        for piece in 0..<pieceCount where bitmap[Int(piece / 8)] & (0x80 >> UInt8(piece % 8)) != 0 {
            ranges.insert((piece * pieceSize)..<min((piece + 1) * pieceSize, size))
        }
        return ranges
    }

    /// The record as bytes.
    package func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(64 + url.utf8.count + bitmap.count)
        bytes.appendBigEndian(Self.version)
        bytes += bootID
        bytes.appendBigEndian(UInt64(bitPattern: size))
        bytes.appendBigEndian(UInt32(pieceSize))
        for text in [url, etag ?? "", lastModified ?? ""] {
            let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
            bytes.appendBigEndian(UInt16(utf8.count))
            bytes += utf8
        }
        bytes += bitmap
        bytes.appendBigEndian(CRC32.checksum(bytes))
        return bytes
    }

    /// Reads a record; throws for anything that is not exactly a valid record of this version.
    package init(decoding bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes: bytes)
        guard bytes.count >= 12, Array(bytes[0..<8]) == Self.magic else {
            throw DecodingError(description: "not a Slipstream control file")
        }
        guard bytes.count >= 4, CRC32.checksum(bytes[..<(bytes.count - 4)]) == UInt32(bigEndianBytes: bytes.suffix(4)) else {
            throw DecodingError(description: "the control file is damaged (checksum mismatch)")
        }
        reader.skip(8)
        guard let version = reader.uint16(), version == Self.version else {
            throw DecodingError(description: "the control file has an unknown version")
        }
        guard let boot = reader.bytes(16), let size = reader.uint64(), let pieceSize = reader.uint32(),
            let url = reader.text(), let etag = reader.text(), let lastModified = reader.text(),
            Int64(bitPattern: size) >= 0, pieceSize > 0
        else { throw DecodingError(description: "the control file is truncated") }
        // The bitmap's length follows from the size and the piece size: checked before one is
        // made, so a record that claims a huge file in small pieces allocates nothing.
        guard Int64(reader.remaining - 4) == Self.bitmapByteCount(size: Int64(bitPattern: size), pieceSize: Int64(pieceSize)) else {
            throw DecodingError(description: "the control file's piece map has the wrong length")
        }
        self.init(
            url: url, size: Int64(bitPattern: size), etag: etag.isEmpty ? nil : etag,
            lastModified: lastModified.isEmpty ? nil : lastModified, pieceSize: Int64(pieceSize), bootID: boot)
        guard let bitmap = reader.bytes(self.bitmap.count), reader.remaining == 4 else {
            throw DecodingError(description: "the control file's piece map has the wrong length")
        }
        self.bitmap = bitmap
    }
}

/// Reads big-endian fields from a byte array.
private struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    var remaining: Int { bytes.count - position }

    mutating func skip(_ count: Int) { position += count }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    mutating func uint16() -> UInt16? { bytes(2).map { UInt16(bigEndianBytes: $0[...]) } }
    mutating func uint32() -> UInt32? { bytes(4).map { UInt32(bigEndianBytes: $0[...]) } }
    mutating func uint64() -> UInt64? { bytes(8).map { UInt64(bigEndianBytes: $0[...]) } }

    mutating func text() -> String? {
        guard let length = uint16(), let utf8 = bytes(Int(length)) else { return nil }
        return String(validating: utf8, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}

extension FixedWidthInteger {
    init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | Self($1) }
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
