/// A place to seek to: a time and the byte offset of the packet that starts there, and how the
/// pair was found. Times count from the start of the audio, before gapless trimming.
public struct AudioSeekPoint: Hashable, Sendable {
    /// How a seek point was found.
    public enum Method: String, Hashable, Sendable, Codable {
        /// From the index of packets seen: exact.
        case frameIndex
        /// Computed from a constant packet size (CBR): exact to the packet.
        case constantBitRate
        /// Computed from the PCM frame size: exact to the frame.
        case pcm
        /// A point of the file's own seek table, at or before the time: exact (FLAC's SEEKTABLE:
        /// a frame starts there; an MP4's segment index, `sidx`: a movie fragment whose first
        /// sample starts at that time).
        case seekPoints
        /// Interpolated in the Xing header's 100-point table of contents: an estimate.
        case xingTable
        /// Interpolated in the VBRI header's table: an estimate.
        case vbriTable
        /// From the mean bit rate seen so far: an estimate.
        case averageBitRate
        /// From an MP4's sample tables: exact to the packet.
        case sampleTable
    }

    /// Seconds from the start of the audio.
    public var time: Double
    /// The frame (sample per channel) at `time`.
    public var frame: Int64
    /// Byte offset in the stream.
    public var offset: Int64
    /// How the point was found.
    public var method: Method

    /// Whether a packet starts exactly at `offset` and exactly at `time`; otherwise both are
    /// estimates and the parser resynchronises at the next packet after `offset`.
    public var isExact: Bool {
        method == .frameIndex || method == .constantBitRate || method == .pcm || method == .sampleTable || method == .seekPoints
    }

    /// Creates a seek point.
    public init(time: Double, frame: Int64, offset: Int64, method: Method) {
        self.time = time
        self.frame = frame
        self.offset = offset
        self.method = method
    }
}
