/// Takes the metadata blocks out of a SHOUTcast/Icecast stream, byte by byte counted: after
/// every `interval` bytes of audio comes one length byte N, then N x 16 bytes of metadata
/// (`StreamTitle='...';`), then the next `interval` bytes of audio.
///
/// A pure value that survives any split of its input: the length byte last in a read, a block
/// cut across reads, several blocks in one read, an interval of a few bytes. Audio is never
/// copied: `scan` consumes the length bytes and metadata before the next audio run and says how
/// long that run is; the caller takes it (or not, and scans again later) and reports it with
/// `audioTaken`. A block's bytes are gathered in a buffer of 4,080 bytes (the most a length
/// byte can announce) made once.
package struct ICYMetadataFilter {
    /// Where in the stream the filter is.
    private enum Position {
        /// In audio, this many bytes before the next length byte.
        case audio(remaining: Int)
        /// The next byte is a block's length byte.
        case lengthByte
        /// In a block, this many bytes still to come.
        case metadata(remaining: Int)
    }

    /// Bytes of audio between two blocks (the `icy-metaint` header).
    package let interval: Int
    private var position: Position
    private var block: [UInt8] = []
    /// Audio bytes taken so far: the stream offset of the next audio byte.
    package private(set) var audioOffset: Int64 = 0

    /// A filter for a stream with `interval` bytes of audio between blocks (at least 1).
    package init(interval: Int) {
        self.interval = max(interval, 1)
        position = .audio(remaining: self.interval)
        block.reserveCapacity(255 * 16)
    }

    /// Consumes, from `input[index...]`, any length byte and metadata that come before the next
    /// run of audio, giving each completed block (valid only during the call; an empty block,
    /// length byte 0, is not given) to `metadata` with the audio offset it stands at. Returns
    /// where the audio run starts and how many of its bytes are in the input (0: the input
    /// ended first).
    package mutating func scan(
        _ input: UnsafeRawBufferPointer, from index: Int,
        metadata: (_ block: UnsafeRawBufferPointer, _ audioOffset: Int64) -> Void
    ) -> (start: Int, audioCount: Int) {
        var index = index
        while index < input.count {
            switch position {
            case .audio(let remaining):
                return (index, min(remaining, input.count - index))
            case .lengthByte:
                let length = Int(input[index]) * 16
                index += 1
                block.removeAll(keepingCapacity: true)
                position = length == 0 ? .audio(remaining: interval) : .metadata(remaining: length)
            case .metadata(let remaining):
                let count = min(remaining, input.count - index)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<index + count]))
                index += count
                if count == remaining {
                    position = .audio(remaining: interval)
                    block.withUnsafeBytes { metadata($0, audioOffset) }
                } else {
                    position = .metadata(remaining: remaining - count)
                }
            }
        }
        return (index, 0)
    }

    /// The caller took `count` bytes of the audio run `scan` found (at most its `audioCount`).
    package mutating func audioTaken(_ count: Int) {
        guard case .audio(let remaining) = position, count > 0 else { return }
        audioOffset += Int64(count)
        position = count >= remaining ? .lengthByte : .audio(remaining: remaining - count)
    }
}
