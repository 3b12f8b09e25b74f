/// Decoding of the text fields tags carry.
package enum TagText {
    /// Decodes an ID3v2 text frame body: an encoding byte (0 ISO-8859-1, 1 UTF-16 with a byte
    /// order mark, 2 UTF-16BE, 3 UTF-8) then the text; only the first of several NUL-separated
    /// values is kept. `nil` for an unknown encoding.
    package static func id3v2(_ body: UnsafeRawBufferPointer) -> String? {
        guard let encoding = body.first else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: body[1...])
        switch encoding {
        case 0: return latin1(text)
        case 3: return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
        case 1, 2:
            var bigEndian = encoding == 2
            var start = 0
            if encoding == 1, text.count >= 2 {
                if text[0] == 0xFF, text[1] == 0xFE { bigEndian = false; start = 2 }
                if text[0] == 0xFE, text[1] == 0xFF { bigEndian = true; start = 2 }
            }
            var units: [UInt16] = []
            units.reserveCapacity((text.count - start) / 2)
            var i = start
            while i + 1 < text.count {
                let unit = UInt16(text.integer(at: i, count: 2, bigEndian: bigEndian))
                if unit == 0 { break }
                units.append(unit)
                i += 2
            }
            return String(decoding: units, as: UTF16.self)
        default: return nil
        }
    }

    /// Decodes ISO-8859-1 up to the first NUL.
    package static func latin1(_ bytes: UnsafeRawBufferPointer) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            if byte == 0 { break }
            scalars.append(Unicode.Scalar(byte))
        }
        return String(scalars)
    }

    /// The bytes with ID3v2 unsynchronisation undone: every 0x00 that follows a 0xFF dropped.
    package static func resynchronised(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0) { out.append(byte) }
            previous = byte
        }
        return out
    }
}
