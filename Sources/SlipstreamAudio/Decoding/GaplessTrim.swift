/// Which decoded frames a gapless player keeps, and how raw stream frames map to the frames it
/// plays ("presentation" frames: presentation frame 0 is the first frame kept).
///
/// The rule is libmpg123's, so that a whole file decoded and trimmed equals
/// `mpg123 --gapless -w` sample for sample: when the Xing/Info header states a packet count
/// (`statedFrameCount` raw frames), the frames kept among those are
/// `encoderDelay + decoderDelay ..< statedFrameCount - encoderPadding + decoderDelay`
/// (without a LAME tag, delay and padding are 0 and only the decoder delay goes), and every
/// frame past the stated ones is kept (audio appended to the file later). Without a stated
/// count nothing is trimmed. Raw frame `n` is the `n`th frame the decoder outputs for the
/// stream's audio packets (`AudioPacket.startFrame` counts them).
package struct GaplessTrim: Hashable, Sendable {
    /// The first raw frame kept.
    package let firstKeptFrame: Int64
    /// The raw frame where the trimmed tail of the stated frames starts (at most
    /// `statedFrameCount`, at least `firstKeptFrame`).
    package let trimmedTailFrame: Int64
    /// Raw frames in the packets the header states; every frame from here on is kept.
    package let statedFrameCount: Int64

    /// Keeps every frame: streams without a Xing/Info frame count.
    package static let none = GaplessTrim(first: 0, tail: 0, stated: 0)

    private init(first: Int64, tail: Int64, stated: Int64) {
        firstKeptFrame = first
        trimmedTailFrame = tail
        statedFrameCount = stated
    }

    /// Trims `encoderDelay + decoderDelay` frames from the start and `encoderPadding -
    /// decoderDelay` from the end of the first `statedFrameCount` raw frames; nothing when
    /// `statedFrameCount` is not positive.
    package init(encoderDelay: Int, decoderDelay: Int, encoderPadding: Int, statedFrameCount: Int64) {
        guard statedFrameCount > 0 else {
            self = .none
            return
        }
        let first = min(Int64(max(encoderDelay, 0) + decoderDelay), statedFrameCount)
        let end = statedFrameCount - Int64(max(encoderPadding, 0)) + Int64(decoderDelay)
        self.init(first: first, tail: max(first, min(end, statedFrameCount)), stated: statedFrameCount)
    }

    /// The trim for a stream the parser described, decoded by a decoder with `decoderDelay`:
    /// from the Xing/Info packet count and the LAME tag's delay and padding; `.none` without a
    /// stated packet count (or before the format is known).
    package init(properties: AudioStreamProperties, decoderDelay: Int) {
        guard let packets = properties.statedPacketCount, let format = properties.format else {
            self = .none
            return
        }
        self.init(
            encoderDelay: properties.encoderDelay ?? 0, decoderDelay: decoderDelay,
            encoderPadding: properties.encoderPadding ?? 0,
            statedFrameCount: packets * Int64(format.framesPerPacket))
    }

    /// The frames to keep of a block of `frameCount` decoded frames whose first is raw frame
    /// `start`, as offsets into the block. The kept frames of one packet are always contiguous;
    /// a block spanning several packets must not cross `statedFrameCount` (split it there).
    package func keptFrames(start: Int64, frameCount: Int) -> Range<Int> {
        let end = start + Int64(frameCount)
        let lower = start >= statedFrameCount ? start : max(start, firstKeptFrame)
        let upper = start >= statedFrameCount ? end : min(end, trimmedTailFrame)
        guard upper > lower else { return 0..<0 }
        return Int(lower - start)..<Int(upper - start)
    }

    /// Frames kept before raw frame `rawFrame`: its presentation frame when it is kept, else the
    /// presentation frame of the next frame kept.
    package func presentationFrame(ofRawFrame rawFrame: Int64) -> Int64 {
        let head = min(max(rawFrame, firstKeptFrame), trimmedTailFrame) - firstKeptFrame
        return head + max(rawFrame - statedFrameCount, 0)
    }

    /// The raw frame played as presentation frame `frame` (0 = the first frame kept).
    package func rawFrame(ofPresentationFrame frame: Int64) -> Int64 {
        let head = trimmedTailFrame - firstKeptFrame
        return frame < head ? firstKeptFrame + max(frame, 0) : statedFrameCount + (frame - head)
    }
}
