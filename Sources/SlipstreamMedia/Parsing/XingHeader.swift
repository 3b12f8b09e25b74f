/// The Xing (VBR) or Info (CBR) header lame and others put in the first MPEG frame, and the LAME
/// tag that follows it: totals, a 100-point seek table, and the encoder delay and padding.
package struct XingHeader: Hashable, Sendable {
    /// "Info": the encoder wrote a constant bit rate stream; "Xing": variable.
    package var isConstantBitRate: Bool
    /// Audio frames in the stream, this header's frame excluded.
    package var frameCount: Int?
    /// Bytes of MPEG audio in the stream, this header's frame included.
    package var byteCount: Int?
    /// The table of contents: entry i is the byte position (in 256ths of `byteCount`) of the
    /// point i% of the way through in time.
    package var tableOfContents: [UInt8]?
    /// Encoder delay and padding in frames, from a LAME (or Lavf/Lavc) tag.
    package var encoderDelay: Int?
    package var encoderPadding: Int?

    /// Parses the header inside `frame` (one whole MPEG frame), or `nil` when there is none.
    package init?(frame: UnsafeRawBufferPointer, header: MPEGFrameHeader) {
        // Some writers leave out the CRC bytes when placing the header; accept both spots.
        let candidates = header.hasCRC ? [header.xingOffset, header.xingOffset - 2] : [header.xingOffset]
        guard
            let start = candidates.first(where: {
                frame.starts(with: "Xing", at: $0) || frame.starts(with: "Info", at: $0)
            }), frame.count >= start + 8
        else { return nil }
        isConstantBitRate = frame.starts(with: "Info", at: start)
        let flags = frame.bigEndian(at: start + 4, count: 4)
        var cursor = start + 8
        func field(_ bit: UInt64, size: Int) -> Int? {
            guard flags & bit != 0, frame.count >= cursor + size else { return nil }
            defer { cursor += size }
            return Int(frame.bigEndian(at: cursor, count: min(size, 4)))
        }
        frameCount = field(1, size: 4)
        byteCount = field(2, size: 4)
        if flags & 4 != 0, frame.count >= cursor + 100 {
            tableOfContents = Array(frame[cursor..<cursor + 100])
            cursor += 100
        }
        _ = field(8, size: 4)  // quality
        // The LAME tag: a 9-byte encoder name, then delay and padding (12 bits each) at 21...23.
        if frame.count >= cursor + 24,
            frame.starts(with: "LAME", at: cursor) || frame.starts(with: "Lav", at: cursor)
        {
            encoderDelay = Int(frame[cursor + 21]) << 4 | Int(frame[cursor + 22] >> 4)
            encoderPadding = Int(frame[cursor + 22] & 0x0F) << 8 | Int(frame[cursor + 23])
        }
    }
}
