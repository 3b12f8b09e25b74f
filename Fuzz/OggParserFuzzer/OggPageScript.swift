// The input of OggParserFuzzer: a script of Ogg pages, which the fuzzer turns into a stream
// with good checksums (unless a page asks for a bad one), so that mutations reach the lacing,
// the packets and the codec headers rather than dying at the checksum.

import FuzzSupport
@testable import SlipstreamMedia

/// A script of pages: each is `flags` (bit 0 continued, 1 first, 2 last, 3 a bad checksum,
/// 4 another stream's serial, 5 garbage before it), a 32-bit little-endian granule position
/// (signed), a segment count, the lacing values and the body. A script cut short gives a
/// stream cut short.
enum OggPageScript {
    /// The Ogg stream the script describes.
    static func stream(_ script: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = []
        var i = 0
        var sequence: UInt32 = 0
        while i + 6 <= script.count {
            let flags = script[i]
            let granule = Int64(
                Int32(
                    bitPattern: UInt32(script[i + 1]) | UInt32(script[i + 2]) << 8 | UInt32(script[i + 3]) << 16 | UInt32(script[i + 4])
                        << 24))
            let segments = Int(script[i + 5])
            i += 6
            let lacing = Array(script[i..<min(i + segments, script.count)])
            i += lacing.count
            let size = lacing.reduce(0) { $0 + Int($1) }
            let body = Array(script[i..<min(i + size, script.count)])
            i += body.count
            if flags & 0x20 != 0 { stream += Array("OggSjunk".utf8) }
            var page = Array("OggS".utf8) + [0, flags & 7]
            page += withUnsafeBytes(of: granule.littleEndian, Array.init)
            let serial: UInt32 = flags & 0x10 != 0 ? 2 : 1
            page += withUnsafeBytes(of: serial.littleEndian, Array.init) + withUnsafeBytes(of: sequence.littleEndian, Array.init)
            page += [0, 0, 0, 0, UInt8(segments)] + lacing + body
            sequence += 1
            if flags & 8 == 0, lacing.count == segments, body.count == size {
                let crc = page.withUnsafeBytes { OggCRC.checksum(ofPage: $0) }
                page.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            }
            stream += page
        }
        return stream
    }

    /// The script of a real Ogg stream's pages (up to `limit` bytes of them): its seeds.
    static func script(of stream: [UInt8], limit: Int) -> [UInt8] {
        var script: [UInt8] = []
        var i = 0
        while i + 27 <= stream.count, script.count < limit {
            let header = stream[i...].withUnsafeBytes { OggPageHeader($0) }
            guard let header, i + header.headerSize <= stream.count else { break }
            let lacing = Array(stream[i + 27..<i + header.headerSize])
            let size = lacing.reduce(0) { $0 + Int($1) }
            guard i + header.headerSize + size <= stream.count else { break }
            let flags = UInt8(header.isContinuation ? 1 : 0) | (header.isFirst ? 2 : 0) | (header.isLast ? 4 : 0)
            let granule = UInt32(bitPattern: Int32(clamping: header.granulePosition))
            script += [flags] + withUnsafeBytes(of: granule.littleEndian, Array.init) + [UInt8(lacing.count)] + lacing
            script += stream[i + header.headerSize..<i + header.headerSize + size]
            i += header.headerSize + size
        }
        return script
    }
}
