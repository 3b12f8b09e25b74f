/// Where the packets seen so far start, compactly: the offset and first frame of every
/// `stride`-th packet of the contiguous run from the start of the audio, in two flat arrays
/// (16 bytes per `stride` packets: about 70 KB for an hour of MP3). Exact, as far as it reaches.
package struct FrameIndex: Hashable, Sendable {
    /// One entry is kept per this many packets.
    package static let stride = 16

    /// Byte offsets of packets 0, stride, 2 stride, ...
    package private(set) var offsets: [Int64] = []
    /// First frames of the same packets.
    package private(set) var frames: [Int64] = []
    /// The offset and first frame the next packet must have to extend the index, and how many
    /// packets are indexed; `nil` before the first packet.
    package private(set) var endOffset: Int64?
    package private(set) var endFrame: Int64 = 0
    package private(set) var packetCount: Int64 = 0

    /// Records a packet of `frameCount` frames at `offset` whose first frame is `startFrame`;
    /// packets that do not continue the indexed run are ignored.
    package mutating func record(offset: Int64, size: Int, frameCount: Int, startFrame: Int64) {
        if endOffset == nil, startFrame == 0 { endOffset = offset }
        guard offset == endOffset, startFrame == endFrame else { return }
        if packetCount % Int64(Self.stride) == 0 {
            offsets.append(offset)
            frames.append(startFrame)
        }
        packetCount += 1
        endOffset = offset + Int64(size)
        endFrame = startFrame + Int64(frameCount)
    }

    /// The first frame of the packet at exactly `offset`, if that packet is an entry, or the
    /// end of the indexed run.
    package func startFrame(ofPacketAt offset: Int64) -> Int64? {
        if offset == endOffset { return endFrame }
        guard let i = lastIndex(in: offsets, notAbove: offset), offsets[i] == offset else { return nil }
        return frames[i]
    }

    /// The last entry at or before `frame` (offset, first frame), if `frame` is inside the run.
    package func entry(atOrBeforeFrame frame: Int64) -> (offset: Int64, frame: Int64)? {
        guard frame < endFrame, let i = lastIndex(in: frames, notAbove: frame) else { return nil }
        return (offsets[i], frames[i])
    }

    /// The last entry at or before `offset` (offset, first frame), if `offset` is inside the run.
    package func entry(atOrBeforeOffset offset: Int64) -> (offset: Int64, frame: Int64)? {
        guard let end = endOffset, offset < end, let i = lastIndex(in: offsets, notAbove: offset) else { return nil }
        return (offsets[i], frames[i])
    }

    /// Binary search: the last index whose value is <= `value`.
    private func lastIndex(in values: [Int64], notAbove value: Int64) -> Int? {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }
}
