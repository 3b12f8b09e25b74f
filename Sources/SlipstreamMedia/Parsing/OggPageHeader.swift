/// The fixed header of an Ogg page (RFC 3533): the capture pattern `OggS`, version 0, flags,
/// granule position, stream serial number, page sequence number, checksum, and the segment
/// table's length. The segment table (lacing values) follows it.
package struct OggPageHeader: Hashable, Sendable {
    /// Bytes of the fixed header, before the segment table.
    package static let size = 27
    /// The largest page there can be: header, 255 lacing values, 255 segments of 255 bytes.
    package static let maximumPageSize = size + 255 + 255 * 255

    /// The page's first packet continues one from the page before.
    package var isContinuation: Bool
    /// The first page of a logical stream (beginning of stream).
    package var isFirst: Bool
    /// The last page of a logical stream (end of stream).
    package var isLast: Bool
    /// The codec's position at the end of the last packet that ends on this page; -1 when no
    /// packet ends on it.
    package var granulePosition: Int64
    /// The logical stream the page belongs to.
    package var serialNumber: UInt32
    /// The page's number within its logical stream.
    package var sequenceNumber: UInt32
    /// The stated CRC-32 of the page.
    package var checksum: UInt32
    /// Entries in the segment table.
    package var segmentCount: Int

    /// Reads the fixed header at the window's front (it holds at least `size` bytes); `nil`
    /// when the bytes are not an Ogg page header of version 0.
    package init?(_ window: UnsafeRawBufferPointer) {
        guard window.starts(with: "OggS"), window[4] == 0, window[5] & 0xF8 == 0 else { return nil }
        isContinuation = window[5] & 1 != 0
        isFirst = window[5] & 2 != 0
        isLast = window[5] & 4 != 0
        granulePosition = Int64(bitPattern: window.littleEndian(at: 6, count: 8))
        serialNumber = UInt32(window.littleEndian(at: 14, count: 4))
        sequenceNumber = UInt32(window.littleEndian(at: 18, count: 4))
        checksum = UInt32(window.littleEndian(at: 22, count: 4))
        segmentCount = Int(window[26])
    }

    /// Bytes of the header and segment table.
    package var headerSize: Int { Self.size + segmentCount }
}
