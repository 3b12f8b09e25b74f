/// Maps time to byte offset and back for a stream: exactly through the frame index for the part
/// seen, by arithmetic for CBR and PCM, through the file's exact seek points (FLAC) or its Xing
/// or VBRI table beyond, and from the mean bit rate when nothing better is known. Every answer says which (`AudioSeekPoint.method`).
public struct AudioSeekTable: Hashable, Sendable {
    package var index = FrameIndex()
    /// Sample rate in Hz and frames per packet; 0 until the format is known.
    package var sampleRate = 0
    package var framesPerPacket = 0
    /// Offset of the first audio packet.
    package var dataOffset: Int64?
    /// Bytes per packet when every packet has the same bit rate (CBR MPEG audio), else `nil`.
    package var constantPacketSize: Double?
    /// Bytes per frame for PCM, else `nil`.
    package var pcmBytesPerFrame: Int?
    /// Points (frame, offset) from a Xing or VBRI table (interpolated) or a seek table of exact
    /// points (`.seekPoints`: FLAC's SEEKTABLE, an MP4's `sidx`), with the method they came from.
    package var tableFrames: [Int64] = []
    package var tableOffsets: [Int64] = []
    package var tableMethod = AudioSeekPoint.Method.xingTable
    /// An MP4's sample tables: exact for every packet.
    package var sampleTable: MP4SampleTable?
    /// Mean bytes per frame of the packets seen, for estimates.
    package var meanBytesPerFrame: Double?
    /// The stream's frames where a header states them exactly (FLAC's STREAMINFO), and the
    /// stream's size in bytes where known: together the whole audio's mean bytes per frame.
    package var headerFrameCount: Int64?
    package var streamSize: Int64?

    /// The bytes per frame estimates are made with: the whole audio's mean where known (a better
    /// estimate than the packets seen), else the packets'.
    package var estimatedBytesPerFrame: Double? {
        if let frames = headerFrameCount, frames > 0, let streamSize, let dataOffset, streamSize > dataOffset {
            return Double(streamSize - dataOffset) / Double(frames)
        }
        return meanBytesPerFrame
    }

    /// A file's own seek points kept at most (16 bytes each): a longer FLAC SEEKTABLE is thinned
    /// to every other point, an MP4's segment indexes are kept up to here.
    package static let maximumSeekPoints = 1 << 16
    /// The furthest frame a time is answered with (2^40: about 290 days at 44.1 kHz); later
    /// times get the answer for it, so the arithmetic cannot overflow.
    package static let maximumFrame: Int64 = 1 << 40
    /// The furthest distance past the data offset an offset is answered for (2^50 bytes); later
    /// offsets get the answer for it.
    package static let maximumOffset: Int64 = 1 << 50

    /// Creates an empty table: every lookup returns `nil` until a format is known.
    public init() {}

    /// Where to seek for `time` (seconds from the start of the audio, before gapless trimming):
    /// the packet containing it when the answer is exact, else an estimate; `nil` until the
    /// format and data offset are known.
    public func offset(forTime time: Double) -> AudioSeekPoint? {
        guard sampleRate > 0, framesPerPacket > 0, let dataOffset, time.isFinite else { return nil }
        let frame = Int64(min(max(time, 0) * Double(sampleRate), Double(Self.maximumFrame)))
        if let bytes = pcmBytesPerFrame {
            return point(frame: frame, offset: dataOffset + frame * Int64(bytes), .pcm)
        }
        if let table = sampleTable {
            let sample = Int(min(frame / Int64(framesPerPacket), Int64(table.sampleCount - 1)))
            guard let cursor = table.sample(at: sample) else { return nil }
            return point(frame: Int64(sample) * Int64(framesPerPacket), offset: cursor.offset, .sampleTable)
        }
        if let entry = index.entry(atOrBeforeFrame: frame) {
            return point(frame: entry.frame, offset: entry.offset, .frameIndex)
        }
        if tableMethod == .seekPoints, let i = Self.lastIndex(in: tableFrames, notAbove: frame) {
            return point(frame: tableFrames[i], offset: tableOffsets[i], .seekPoints)
        }
        if let size = constantPacketSize {
            let packet = frame / Int64(framesPerPacket)
            return point(
                frame: packet * Int64(framesPerPacket),
                offset: dataOffset + Int64((Double(packet) * size).rounded(.down)), .constantBitRate)
        }
        if let offset = interpolate(frame, from: tableFrames, to: tableOffsets) {
            return point(frame: frame, offset: offset, tableMethod)
        }
        return estimatedBytesPerFrame.map { point(frame: frame, offset: dataOffset + Int64(Double(frame) * $0), .averageBitRate) }
    }

    /// The time at byte `offset`: exact answers give the packet starting at or before it.
    public func time(forOffset offset: Int64) -> AudioSeekPoint? {
        guard sampleRate > 0, framesPerPacket > 0, let dataOffset else { return nil }
        let relative = min(max(offset, dataOffset) - dataOffset, Self.maximumOffset)
        if let bytes = pcmBytesPerFrame {
            let frame = relative / Int64(bytes)
            return point(frame: frame, offset: dataOffset + frame * Int64(bytes), .pcm)
        }
        if let table = sampleTable {
            guard let cursor = table.sample(atOrAfter: offset) else { return nil }
            return point(frame: Int64(cursor.index) * Int64(framesPerPacket), offset: cursor.offset, .sampleTable)
        }
        if let entry = index.entry(atOrBeforeOffset: offset) {
            return point(frame: entry.frame, offset: entry.offset, .frameIndex)
        }
        if tableMethod == .seekPoints, let i = Self.lastIndex(in: tableOffsets, notAbove: offset) {
            return point(frame: tableFrames[i], offset: tableOffsets[i], .seekPoints)
        }
        if let size = constantPacketSize {
            let packet = Int64(Double(relative) / size)
            return point(
                frame: packet * Int64(framesPerPacket),
                offset: dataOffset + Int64((Double(packet) * size).rounded(.down)), .constantBitRate)
        }
        if let frame = interpolate(offset, from: tableOffsets, to: tableFrames) {
            return point(frame: frame, offset: offset, tableMethod)
        }
        // A stated length far past the stream's size makes the bytes per frame tiny.
        return estimatedBytesPerFrame.map {
            point(frame: Int64(min(Double(relative) / $0, Double(Self.maximumFrame))), offset: dataOffset + relative, .averageBitRate)
        }
    }

    /// The exact first frame of a packet starting at `offset`, where the table knows it.
    package func startFrame(ofPacketAt offset: Int64) -> Int64? {
        if let table = sampleTable {
            guard let cursor = table.sample(atOrAfter: offset), cursor.offset == offset else { return nil }
            return Int64(cursor.index) * Int64(framesPerPacket)
        }
        if let frame = index.startFrame(ofPacketAt: offset) { return frame }
        guard let dataOffset, offset >= dataOffset, framesPerPacket > 0 else { return nil }
        if let bytes = pcmBytesPerFrame { return (offset - dataOffset) / Int64(bytes) }
        guard let size = constantPacketSize else { return nil }
        return Int64((Double(offset - dataOffset) / size).rounded()) * Int64(framesPerPacket)
    }

    private func point(frame: Int64, offset: Int64, _ method: AudioSeekPoint.Method) -> AudioSeekPoint {
        AudioSeekPoint(time: Double(frame) / Double(sampleRate), frame: frame, offset: offset, method: method)
    }

    /// The last index of ascending `values` whose value is at most `value`.
    private static func lastIndex(in values: [Int64], notAbove value: Int64) -> Int? {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }

    /// Piecewise-linear interpolation of `value` through the points (`from[i]`, `to[i]`);
    /// `from` is ascending. `nil` without at least two points or outside them.
    private func interpolate(_ value: Int64, from: [Int64], to: [Int64]) -> Int64? {
        guard from.count >= 2, let first = from.first, let last = from.last, value >= first, value <= last else {
            return nil
        }
        var i = 1
        while i < from.count - 1, from[i] < value { i += 1 }
        let span = Double(from[i] - from[i - 1])
        let fraction = span > 0 ? Double(value - from[i - 1]) / span : 0
        return to[i - 1] + Int64(fraction * Double(to[i] - to[i - 1]))
    }
}
