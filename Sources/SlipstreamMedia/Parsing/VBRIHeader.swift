/// The VBRI header Fraunhofer's encoder puts 32 bytes after the first frame's header: totals
/// and a seek table of byte sizes per group of frames.
package struct VBRIHeader: Hashable, Sendable {
    /// Encoder delay in frames.
    package var delay: Int
    /// Bytes of MPEG audio in the stream, this header's frame included.
    package var byteCount: Int
    /// Audio frames in the stream, this header's frame excluded.
    package var frameCount: Int
    /// Frames covered by each entry of `entryByteCounts`.
    package var framesPerEntry: Int
    /// Bytes taken by each successive group of `framesPerEntry` frames.
    package var entryByteCounts: [Int]

    /// Where the header starts, counted from the frame start.
    package static let offset = 36

    /// Parses the header inside `frame` (one whole MPEG frame), or `nil` when there is none.
    package init?(frame: UnsafeRawBufferPointer) {
        let start = Self.offset
        guard frame.count >= start + 26, frame.starts(with: "VBRI", at: start) else { return nil }
        delay = Int(frame.bigEndian(at: start + 6, count: 2))
        byteCount = Int(frame.bigEndian(at: start + 10, count: 4))
        frameCount = Int(frame.bigEndian(at: start + 14, count: 4))
        let entries = Int(frame.bigEndian(at: start + 18, count: 2))
        let scale = Int(frame.bigEndian(at: start + 20, count: 2))
        let entrySize = Int(frame.bigEndian(at: start + 22, count: 2))
        framesPerEntry = Int(frame.bigEndian(at: start + 24, count: 2))
        let tableStart = start + 26
        guard (1...4).contains(entrySize), framesPerEntry > 0,
            frame.count >= tableStart + entries * entrySize
        else {
            entryByteCounts = []
            return
        }
        entryByteCounts = (0..<entries).map {
            Int(frame.bigEndian(at: tableStart + $0 * entrySize, count: entrySize)) * max(scale, 1)
        }
    }
}
