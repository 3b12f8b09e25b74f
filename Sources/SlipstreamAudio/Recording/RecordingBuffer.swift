/// The recorder's bounded buffer, from the network side to the recorder's writer thread:
/// packet bytes in one ring, and marks at the byte where each takes effect (a new codec or
/// codec setup, a radio title, a gap). When the ring (or the list of marks) is full the packet is dropped
/// whole, so every byte kept still lies on a packet boundary; the next packet stored carries
/// a gap mark with the bytes dropped before it, and the newest title of the dropped packets.
///
/// A plain value with no locking (the recorder holds it behind its lock). Storing a packet
/// copies its bytes once; nothing is allocated per packet once the ring exists.
struct RecordingBuffer {
    /// What happens at a byte of the recording.
    enum Mark: Hashable, Sendable {
        /// The packets from here on are in this codec (told at the first packet and at changes).
        case codec(AudioFormat.Codec)
        /// The codec's setup from here on, where a recorded file's header needs it (FLAC's
        /// STREAMINFO; told at the first packet and at changes).
        case setup([UInt8])
        /// A radio title starts here.
        case title(StreamTitle)
        /// This many bytes of packets were dropped just before here.
        case gap(droppedBytes: Int64)
    }

    /// What the writer takes next.
    enum Item: Hashable, Sendable {
        /// A mark, at the writer's position.
        case mark(Mark)
        /// This many bytes of audio, copied into the writer's chunk (never past a mark).
        case audio(Int)
    }

    /// The most marks held at once (four a packet at most: a gap, a codec, a setup, a title).
    static let maximumMarks = 64

    private var ring: [UInt8]
    /// Marks not yet taken, `marks[markHead...]`, in order of position.
    private var marks: [(position: Int64, mark: Mark)] = []
    private var markHead = 0
    /// Bytes ever stored and ever taken; the difference is what the ring holds.
    private var stored: Int64 = 0
    private var taken: Int64 = 0
    /// Bytes dropped since the last packet stored, and the newest title and setup among them.
    private var dropped: Int64 = 0
    private var droppedTitle: StreamTitle?
    private var droppedSetup: [UInt8]?
    /// The codec last marked.
    private var codec: AudioFormat.Codec?

    /// A buffer holding up to `capacity` bytes of packets (at least 64 KiB).
    init(capacity: Int) {
        ring = [UInt8](repeating: 0, count: max(capacity, 64 << 10))
        marks.reserveCapacity(Self.maximumMarks)
    }

    /// Bytes held and not yet taken.
    var count: Int { Int(stored - taken) }

    /// Stores a packet of `codec` whose first byte starts `title` (if any) and, where given,
    /// the codec's `setup`; false when there was no room and it was dropped.
    @discardableResult
    mutating func append(
        _ bytes: UnsafeRawBufferPointer, codec: AudioFormat.Codec, title: StreamTitle?, setup: [UInt8]? = nil
    ) -> Bool {
        let title = title ?? droppedTitle
        let setup = setup ?? droppedSetup
        let newMarks = (dropped > 0 ? 1 : 0) + (codec != self.codec ? 1 : 0) + (setup != nil ? 1 : 0) + (title != nil ? 1 : 0)
        guard bytes.count <= ring.count - count, marks.count - markHead + newMarks <= Self.maximumMarks else {
            dropped += Int64(bytes.count)
            droppedTitle = title
            droppedSetup = setup
            return false
        }
        if markHead > 0, markHead == marks.count {
            marks.removeAll(keepingCapacity: true)
            markHead = 0
        } else if marks.count + newMarks > Self.maximumMarks {
            marks.removeFirst(markHead)
            markHead = 0
        }
        if dropped > 0 { marks.append((stored, .gap(droppedBytes: dropped))) }
        if codec != self.codec { marks.append((stored, .codec(codec))) }
        if let setup { marks.append((stored, .setup(setup))) }
        if let title { marks.append((stored, .title(title))) }
        self.codec = codec
        dropped = 0
        droppedTitle = nil
        droppedSetup = nil
        let start = Int(stored % Int64(ring.count))
        let first = min(bytes.count, ring.count - start)
        ring.withUnsafeMutableBytes { ring in
            ring.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!, byteCount: first)
            if first < bytes.count {
                ring.baseAddress!.copyMemory(from: bytes.baseAddress! + first, byteCount: bytes.count - first)
            }
        }
        stored += Int64(bytes.count)
        return true
    }

    /// Counts `count` bytes the caller dropped without offering them (the next packet stored
    /// carries them in its gap).
    mutating func drop(_ count: Int) {
        dropped += Int64(count)
    }

    /// Bytes dropped after the last packet stored (at the end of the recording: the last
    /// file's gap), now counted as told.
    mutating func takeTrailingGap() -> Int64 {
        defer { dropped = 0 }
        return dropped
    }

    /// The next item for the writer, oldest first: a mark at its position, or the audio up to
    /// the next mark (at most `chunk.count` bytes, copied into `chunk`); nil when there is none.
    mutating func take(into chunk: UnsafeMutableRawBufferPointer) -> Item? {
        if markHead < marks.count, marks[markHead].position == taken {
            markHead += 1
            return .mark(marks[markHead - 1].mark)
        }
        let end = markHead < marks.count ? marks[markHead].position : stored
        let size = min(Int(end - taken), chunk.count)
        guard size > 0 else { return nil }
        let start = Int(taken % Int64(ring.count))
        let first = min(size, ring.count - start)
        ring.withUnsafeBytes { ring in
            chunk.baseAddress!.copyMemory(from: ring.baseAddress! + start, byteCount: first)
            if first < size { (chunk.baseAddress! + first).copyMemory(from: ring.baseAddress!, byteCount: size - first) }
        }
        taken += Int64(size)
        return .audio(size)
    }
}
