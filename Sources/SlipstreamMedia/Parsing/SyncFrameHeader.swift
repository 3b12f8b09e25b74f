/// The header of a frame in a stream that is a plain run of self-describing frames (MPEG audio,
/// ADTS): what `FrameSync` needs to find, confirm and follow them.
package protocol SyncFrameHeader: Hashable, Sendable {
    /// Bytes needed to parse a header.
    static var headerLength: Int { get }
    /// Parses a header at `index`; `nil` unless there is one with no reserved values.
    init?(_ bytes: UnsafeRawBufferPointer, at index: Int)
    /// Whether a header could start at `index`: a sync word, or the start of one cut off by the
    /// end of `bytes`.
    static func mayStart(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool
    /// Whether `other` can follow this header in the same stream.
    func agrees(with other: Self) -> Bool
}

extension MPEGFrameHeader: SyncFrameHeader {
    package static var headerLength: Int { 4 }

    package static func mayStart(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        bytes[index] == 0xFF && (index + 1 == bytes.count || bytes[index + 1] & 0xE0 == 0xE0)
    }
}
