/// The first packet of FLAC in Ogg (the Ogg FLAC mapping 1.0): `0x7F FLAC`, the mapping's
/// version, the number of header packets after it, `fLaC` and the STREAMINFO block; and the
/// block size of a FLAC frame from its header.
package struct OggFLACStreamInfo: Hashable, Sendable {
    /// The STREAMINFO block's 34 bytes (`AudioFormat.magicCookie` for FLAC).
    package let block: [UInt8]
    /// Header packets (metadata blocks) after this one; 0 when not stated.
    package let headerPacketCount: Int
    package let sampleRate: Int
    package let channels: Int
    /// The largest block (frames per packet) the stream uses.
    package let maximumBlockSize: Int

    /// Reads the mapping's first packet; `nil` when it is not a valid one.
    package init?(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= 51, packet.starts(with: "\u{7F}FLAC"), packet[5] == 1, packet.starts(with: "fLaC", at: 9),
            packet[13] & 0x7F == 0, packet.bigEndian(at: 14, count: 3) == 34
        else { return nil }
        let info = UnsafeRawBufferPointer(rebasing: packet[17..<51])
        block = Array(info)
        headerPacketCount = Int(packet.bigEndian(at: 7, count: 2))
        maximumBlockSize = Int(info.bigEndian(at: 2, count: 2))
        sampleRate = Int(info.bigEndian(at: 10, count: 3) >> 4)
        channels = Int(info[12] >> 1 & 7) + 1
        guard sampleRate > 0, maximumBlockSize >= 16 else { return nil }
    }

    /// The frames a FLAC frame holds, from its header's block size code; 0 when the bytes do
    /// not start a frame header.
    package static func frameCount(of frame: UnsafeRawBufferPointer) -> Int {
        guard frame.count >= 5, frame[0] == 0xFF, frame[1] & 0xFE == 0xF8 else { return 0 }
        let code = Int(frame[2] >> 4)
        switch code {
        case 1: return 192
        case 2...5: return 576 << (code - 2)
        case 8...15: return 256 << (code - 8)
        case 6, 7:
            // After the UTF-8-style coded frame or sample number.
            var ones = 0
            while ones < 8, frame[4] & (0x80 >> ones) != 0 { ones += 1 }
            let at = 4 + max(ones, 1), count = code - 5
            guard frame.count >= at + count else { return 0 }
            return Int(frame.bigEndian(at: at, count: count)) + 1
        default: return 0
        }
    }
}
