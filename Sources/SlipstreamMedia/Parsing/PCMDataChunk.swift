/// The audio of an uncompressed container (WAV's `data`, AIFF's `SSND`, CAF's `data`), cut into
/// packets of whole frames: the part the WAV, AIFF and CAF parsers share, with the stream state
/// they set for PCM (format, exact bit rate, arithmetic seeking, totals from the chunk's size).
package struct PCMDataChunk: Hashable, Sendable {
    /// The most bytes one packet holds, so the parser never holds more than that.
    private static let maximumPacketSize = 64 << 10

    package let layout: AudioFormat.PCMLayout
    /// Where the audio starts, and ends (`nil` when its size is left open).
    package let start: Int64
    package let end: Int64?
    /// Bytes of audio still to come (`Int64.max` when open).
    package private(set) var remaining: Int64

    /// The audio of `size` bytes (`nil` when open) from `start`.
    package init(layout: AudioFormat.PCMLayout, start: Int64, size: Int64?) {
        self.layout = layout
        self.start = start
        end = size.map { start + $0 }
        remaining = size ?? .max
    }

    /// Frames in each packet (the last may hold fewer): 1024, fewer for frames so wide that a
    /// packet would pass `maximumPacketSize`.
    package static func framesPerPacket(_ layout: AudioFormat.PCMLayout) -> Int {
        max(1, min(1024, maximumPacketSize / layout.bytesPerFrame))
    }

    /// Sets the stream's format (PCM of `layout`, described as `description`) and what PCM
    /// makes exact: the bit rate and seeking by arithmetic.
    package static func announce(
        _ layout: AudioFormat.PCMLayout, sampleRate: Int, channels: Int, description: String, state: inout StreamState
    ) {
        state.setFormat(
            AudioFormat(
                codec: .pcm, codecDescription: description, sampleRate: sampleRate, channels: channels,
                framesPerPacket: framesPerPacket(layout), pcm: layout))
        state.pcmBitRate = Double(sampleRate * layout.bytesPerFrame * 8)
        state.seekTable.pcmBytesPerFrame = layout.bytesPerFrame
        state.set(\.isSeekableByTime, true)
    }

    /// Tells the stream state where the audio starts (for seeking before the first packet), and
    /// its totals from the chunk's size, when it is stated.
    package func noteStart(_ state: inout StreamState) {
        state.seekTable.dataOffset = start
        guard let end else { return }
        let size = end - start
        let frames = size / Int64(layout.bytesPerFrame)
        let perPacket = Int64(Self.framesPerPacket(layout))
        state.headerFrameCount = frames
        state.headerByteCount = size
        state.headerPacketCount = (frames + perPacket - 1) / perPacket
        state.changed = true
    }

    /// The next packet at the window's front, or a trailing partial frame to skip; `nil` once
    /// the audio has ended.
    package mutating func step(_ window: UnsafeRawBufferPointer, isFinal: Bool) -> ParseStep? {
        guard remaining > 0 else { return nil }
        let frameBytes = layout.bytesPerFrame
        let wanted = Int(min(remaining, Int64(Self.framesPerPacket(layout) * frameBytes)))
        if window.count < wanted, !isFinal { return .need(wanted) }
        let available = min(wanted, window.count)
        let usable = available - available % frameBytes
        guard usable > 0 else {
            // A trailing partial frame.
            remaining -= Int64(available)
            return .skip(Int64(available))
        }
        remaining -= Int64(usable)
        return .packet(size: usable, frames: usable / frameBytes)
    }

    /// Packets of the audio counted without their bytes (`countRest(from:sourceEnd:)`).
    package struct Count: Hashable, Sendable {
        package var packets: Int64
        /// Bytes in the packets (whole frames).
        package var bytes: Int64
        package var frames: Int64
        /// Bytes passed over: the packets' and a trailing partial frame's.
        package var used: Int64
    }

    /// The packets `step` would cut the rest of the audio into, from stream `offset` (where the
    /// next packet starts), counted without the bytes: to the chunk's end, or to `sourceEnd`
    /// where the source ends sooner (a file cut short) or the chunk's size is left open. The
    /// chunk is left past them. `nil` when neither end is known.
    package mutating func countRest(from offset: Int64, sourceEnd: Int64?) -> Count? {
        let inSource = sourceEnd.map { max($0 - offset, 0) }
        guard remaining != .max || inSource != nil else { return nil }
        let available = min(remaining, inSource ?? remaining)
        let frameBytes = Int64(layout.bytesPerFrame)
        let perPacket = Int64(Self.framesPerPacket(layout))
        let whole = available / frameBytes
        let packets = whole / perPacket + (whole % perPacket > 0 ? 1 : 0)
        remaining -= available
        return Count(packets: packets, bytes: whole * frameBytes, frames: whole, used: available)
    }

    /// The chunk read on from `offset` (after a discontinuity), and the bytes to skip to the
    /// next frame boundary; `nil` when `offset` is outside the audio.
    package func resynchronised(at offset: Int64) -> (chunk: PCMDataChunk, skip: Int64)? {
        guard offset >= start, offset < (end ?? .max) else { return nil }
        let misalignment = (offset - start) % Int64(layout.bytesPerFrame)
        let skip = misalignment == 0 ? 0 : Int64(layout.bytesPerFrame) - misalignment
        var chunk = self
        chunk.remaining = end.map { max($0 - offset - skip, 0) } ?? .max
        return (chunk, skip)
    }
}
