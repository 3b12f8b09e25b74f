@testable import SlipstreamMedia

/// Builders for small synthetic streams.
package enum Synth {
    /// `count` MPEG-1 Layer III frames at 128 kbit/s, 44.1 kHz, unpadded (417 bytes each),
    /// optionally CRC-protected; the body bytes are `fill`.
    package static func mp3Frames(_ count: Int, crc: Bool = false, fill: UInt8 = 0) -> [UInt8] {
        let frame: [UInt8] = [0xFF, crc ? 0xFA : 0xFB, 0x90, 0x64] + [UInt8](repeating: fill, count: 413)
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// A 28-bit synchsafe integer.
    package static func synchsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 127), UInt8((n >> 14) & 127), UInt8((n >> 7) & 127), UInt8(n & 127)]
    }

    /// An ID3v2 tag of `version` (2, 3 or 4) holding `frames` (id, body), with `flags`.
    package static func id3v2(version: UInt8, flags: UInt8 = 0, frames: [(String, [UInt8])], padding: Int = 0) -> [UInt8] {
        var body: [UInt8] = []
        for (id, content) in frames {
            body += Array(id.utf8)
            switch version {
            case 2: body += [UInt8(content.count >> 16 & 255), UInt8(content.count >> 8 & 255), UInt8(content.count & 255)]
            case 3:
                body += [
                    UInt8(content.count >> 24 & 255), UInt8(content.count >> 16 & 255),
                    UInt8(content.count >> 8 & 255), UInt8(content.count & 255), 0, 0,
                ]
            default: body += synchsafe(content.count) + [0, 0]
            }
            body += content
        }
        body += [UInt8](repeating: 0, count: padding)
        return Array("ID3".utf8) + [version, 0, flags] + synchsafe(body.count) + body
    }

    /// An ADTS frame (MPEG-4 AAC LC, 44.1 kHz, stereo) with `blocks` raw data blocks and a
    /// payload of `payload` bytes, with or without a CRC.
    package static func adtsFrame(payload: Int, blocks: Int = 1, crc: Bool = false, fullness: Int = 0x7FF) -> [UInt8] {
        let length = (crc ? 9 : 7) + payload
        var frame: [UInt8] = [
            0xFF, crc ? 0xF0 : 0xF1, 0x50 | 0, UInt8(2 << 6 | (length >> 11) & 3), UInt8((length >> 3) & 255),
            UInt8((length & 7) << 5 | fullness >> 6), UInt8((fullness & 0x3F) << 2 | (blocks - 1)),
        ]
        if crc { frame += [0x12, 0x34] }
        return frame + [UInt8](repeating: 0x21, count: payload)
    }
}
