/// A segment index (`sidx`) of a fragmented MP4: where each subsegment it lists (a run of movie
/// fragments) starts, in time and in the file. Bounded by the box, which is held whole.
package struct MP4SegmentIndex: Hashable, Sendable {
    /// The track it indexes.
    package var referenceID: Int
    /// Ticks per second of its times.
    package var timescale: Int
    /// Each subsegment's start: its time (ticks) and its first byte.
    package var times: [Int64] = []
    package var offsets: [Int64] = []
    /// Where the last subsegment ends: its time (ticks) and the byte after it.
    package var endTime: Int64
    package var endOffset: Int64

    /// Times past this many ticks are taken as this (2^40), so that no sum or product overflows.
    package static let maximumTime: Int64 = 1 << 40

    /// Reads the contents of a `sidx` box that ends at `boxEnd` (its offsets count from there);
    /// `nil` when it is short, or states no subsegment or a timescale of 0.
    package init?(_ body: UnsafeRawBufferPointer, boxEnd: Int64) {
        guard let (version, _) = MP4LeafBoxes.versionAndFlags(body) else { return nil }
        let fieldSize = version == 0 ? 4 : 8
        let fixed = 12 + 2 * fieldSize + 4
        guard body.count >= fixed else { return nil }
        referenceID = Int(body.bigEndian(at: 4, count: 4))
        timescale = Int(body.bigEndian(at: 8, count: 4))
        let count = Int(body.bigEndian(at: fixed - 2, count: 2))
        guard timescale > 0, count > 0, body.count >= fixed + 12 * count else { return nil }
        var time = Int64(min(body.bigEndian(at: 12, count: fieldSize), UInt64(Self.maximumTime)))
        var offset = boxEnd + Int64(min(body.bigEndian(at: 12 + fieldSize, count: fieldSize), UInt64(1) << 50))
        times.reserveCapacity(count)
        offsets.reserveCapacity(count)
        for i in 0..<count {
            let at = fixed + 12 * i
            times.append(time)
            offsets.append(offset)
            // The top bit says the reference is another index; the size is the rest.
            offset += Int64(body.bigEndian(at: at, count: 4) & 0x7FFF_FFFF)
            time = min(time + Int64(body.bigEndian(at: at + 4, count: 4)), Self.maximumTime)
        }
        (endTime, endOffset) = (time, offset)
    }
}
