/// Writes one logical Ogg stream's pages (RFC 3533) from its packets: each packet laced into
/// the page being filled (a packet longer than a page's 255 segments continues on the next
/// page), a page handed out once its body reaches `pageBodyTarget` bytes or when told to
/// flush, with its sequence number, the granule position of the last packet it completes (-1
/// when it completes none), its flags (first page, continued packet, last page) and its CRC.
///
/// The page is built in buffers kept from page to page: nothing is allocated per packet. Pure:
/// the pages go to the caller's closure, valid only during the call.
package struct OggPageWriter {
    /// A page is handed out once its body holds at least this many bytes.
    package static let pageBodyTarget = 4096

    package let serial: UInt32
    private var sequence: UInt32 = 0
    private var segments: [UInt8] = []
    private var body: [UInt8] = []
    /// The granule position of the last packet completed on the page being filled.
    private var granule: Int64 = -1
    /// The page being filled starts with the rest of a packet.
    private var continues = false
    private var page: [UInt8] = []
    /// The granule position of the last packet added, for a last page with none.
    private var lastGranule: Int64 = 0

    /// A writer of the stream with serial number `serial`.
    package init(serial: UInt32) {
        self.serial = serial
        segments.reserveCapacity(255)
        body.reserveCapacity(255 * 255)
        page.reserveCapacity(27 + 255 + 255 * 255)
    }

    /// Adds `packet`, which ends at `granule`; hands out the pages it fills.
    package mutating func add(_ packet: UnsafeRawBufferPointer, granule: Int64, emit: (UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while true {
            if segments.count == 255 {
                emitPage(last: false, emit: emit)
                continues = offset > 0
            }
            let size = min(255, packet.count - offset)
            segments.append(UInt8(size))
            if size > 0 { body.append(contentsOf: UnsafeRawBufferPointer(rebasing: packet[offset..<offset + size])) }
            offset += size
            // A segment under 255 bytes ends the packet (a packet of 255 k bytes ends with an empty one).
            if size < 255 { break }
        }
        self.granule = granule
        lastGranule = granule
        if body.count >= Self.pageBodyTarget { emitPage(last: false, emit: emit) }
    }

    /// Hands out the page being filled, if it holds anything: after a header packet, which
    /// ends its page.
    package mutating func flush(emit: (UnsafeRawBufferPointer) -> Void) {
        if !segments.isEmpty { emitPage(last: false, emit: emit) }
    }

    /// Ends the stream: hands out the page being filled as its last page (an empty one when
    /// nothing is left to fill it).
    package mutating func finish(emit: (UnsafeRawBufferPointer) -> Void) {
        if segments.isEmpty { granule = lastGranule }
        emitPage(last: true, emit: emit)
    }

    private mutating func emitPage(last: Bool, emit: (UnsafeRawBufferPointer) -> Void) {
        let flags: UInt8 = (continues ? 1 : 0) | (sequence == 0 ? 2 : 0) | (last ? 4 : 0)
        page.removeAll(keepingCapacity: true)
        // "OggS", version 0, the flags (appended one by one: an array literal would be allocated).
        appendLittleEndian(0x5367_674F, bytes: 4)
        page.append(0)
        page.append(flags)
        appendLittleEndian(UInt64(bitPattern: granule), bytes: 8)
        appendLittleEndian(UInt64(serial), bytes: 4)
        appendLittleEndian(UInt64(sequence), bytes: 4)
        // The checksum, filled in below, and the segment table.
        appendLittleEndian(0, bytes: 4)
        page.append(UInt8(segments.count))
        page.append(contentsOf: segments)
        page.append(contentsOf: body)
        let crc = page.withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
        for index in 0..<4 { page[22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
        page.withUnsafeBytes { emit($0) }
        sequence &+= 1
        segments.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: true)
        granule = -1
        continues = false
    }

    private mutating func appendLittleEndian(_ value: UInt64, bytes: Int) {
        for index in 0..<bytes { page.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
