/// One complete packet of audio as it lies in the stream: an MPEG frame, an ADTS frame, or a run
/// of PCM frames. The packet's bytes are handed to the sink beside it.
public struct AudioPacket: Hashable, Sendable {
    /// Byte offset of the packet's first byte in the stream.
    public var offset: Int64
    /// Size in bytes.
    public var size: Int
    /// Audio frames (samples per channel) the packet decodes to, before gapless trimming.
    public var frameCount: Int
    /// Index of the packet's first frame counted from the start of the audio (before gapless
    /// trimming), or `nil` when unknown (after a discontinuity to an offset whose position in
    /// time the parser cannot know exactly).
    public var startFrame: Int64?
    /// The packet's start time in seconds (`startFrame / sampleRate`), or `nil` when unknown.
    public var startTime: Double?

    /// Creates a packet description.
    public init(offset: Int64, size: Int, frameCount: Int, startFrame: Int64?, startTime: Double?) {
        self.offset = offset
        self.size = size
        self.frameCount = frameCount
        self.startFrame = startFrame
        self.startTime = startTime
    }
}
