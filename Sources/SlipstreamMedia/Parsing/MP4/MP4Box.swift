/// An ISO BMFF box type, its four characters as one big-endian integer.
package struct FourCC: Hashable, Sendable, CustomStringConvertible {
    package let value: UInt32

    package init(_ text: StaticString) {
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(text.utf8Start[i]) }
        self.value = value
    }

    /// iTunes' `©xxx` item types: the byte 0xA9, then three ASCII characters.
    package init(copyright text: StaticString) {
        var value: UInt32 = 0xA9
        for i in 0..<3 { value = value << 8 | UInt32(text.utf8Start[i]) }
        self.value = value
    }

    package init(_ window: UnsafeRawBufferPointer, at index: Int) {
        value = UInt32(window.bigEndian(at: index, count: 4))
    }

    /// The four characters, non-printable ones as `?`.
    package var description: String {
        String(
            (0..<4).map { i in
                let byte = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i)))
                return (0x20..<0x7F).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
            })
    }

    package static let ftyp = FourCC("ftyp"), moov = FourCC("moov"), mdat = FourCC("mdat"), moof = FourCC("moof")
    package static let trak = FourCC("trak"), mdia = FourCC("mdia"), minf = FourCC("minf"), stbl = FourCC("stbl")
    package static let edts = FourCC("edts"), elst = FourCC("elst"), udta = FourCC("udta"), meta = FourCC("meta")
    package static let ilst = FourCC("ilst"), mvex = FourCC("mvex"), traf = FourCC("traf"), trex = FourCC("trex")
    package static let mvhd = FourCC("mvhd"), tkhd = FourCC("tkhd"), mdhd = FourCC("mdhd"), hdlr = FourCC("hdlr")
    package static let stsd = FourCC("stsd"), stts = FourCC("stts"), stsc = FourCC("stsc"), stsz = FourCC("stsz")
    package static let stco = FourCC("stco"), co64 = FourCC("co64"), chpl = FourCC("chpl"), tfhd = FourCC("tfhd")
    package static let tfdt = FourCC("tfdt"), trun = FourCC("trun"), covr = FourCC("covr"), data = FourCC("data")
    package static let soun = FourCC("soun"), mp4a = FourCC("mp4a"), esds = FourCC("esds"), wave = FourCC("wave")
    package static let freeform = FourCC("----"), name = FourCC("name"), sidx = FourCC("sidx"), mfhd = FourCC("mfhd")
    package static let tref = FourCC("tref"), chap = FourCC("chap"), text = FourCC("text"), sbtl = FourCC("sbtl")
    package static let title = FourCC(copyright: "nam"), artist = FourCC(copyright: "ART"), album = FourCC(copyright: "alb")
}

/// A box header: its type, where its contents start and where it ends.
package struct MP4BoxHeader: Hashable, Sendable {
    package var type: FourCC
    /// Bytes of the header (8, or 16 with a 64-bit size).
    package var headerSize: Int
    /// The box's size including the header; `nil` for a box that runs to the end of the file.
    package var size: Int64?

    /// The header at the front of `window`; `.need` when the window is too short, an error for
    /// a size smaller than the header.
    package static func read(_ window: UnsafeRawBufferPointer, offset: Int64) throws(AudioParserError) -> MP4BoxHeader? {
        guard window.count >= 8 else { return nil }
        let size32 = window.bigEndian(at: 0, count: 4)
        let type = FourCC(window, at: 4)
        switch size32 {
        case 0:
            return MP4BoxHeader(type: type, headerSize: 8, size: nil)
        case 1:
            guard window.count >= 16 else { return nil }
            let size = window.bigEndian(at: 8, count: 8)
            guard size >= 16, size < UInt64(Int64.max / 2) else { throw mp4Malformed("box '\(type)' of \(size) bytes", offset) }
            return MP4BoxHeader(type: type, headerSize: 16, size: Int64(size))
        default:
            guard size32 >= 8 else { throw mp4Malformed("box '\(type)' of \(size32) bytes", offset) }
            return MP4BoxHeader(type: type, headerSize: 8, size: Int64(size32))
        }
    }
}

/// An error for a broken MP4 structure.
package func mp4Malformed(_ what: String, _ offset: Int64) -> AudioParserError {
    AudioParserError(code: .malformed, message: "MP4: \(what)", offset: offset)
}
