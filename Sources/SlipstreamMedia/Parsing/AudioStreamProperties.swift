/// What the parser knows about a stream so far, in the spirit of AudioFileStream's properties.
/// Fields start `nil` and are filled as the bytes that tell them arrive.
public struct AudioStreamProperties: Hashable, Sendable {
    /// Where a total (duration, packet count, byte count) came from.
    public enum Source: String, Hashable, Sendable, Codable {
        /// Stated by the file: a Xing/Info or VBRI header, or a WAV `data` chunk size.
        case header
        /// Counted: every packet of the stream has been seen.
        case counted
        /// Estimated from the stream's size and the bit rate seen so far.
        case estimate
    }

    /// A stream's bit rate.
    public struct BitRate: Hashable, Sendable, Codable {
        /// Whether the bit rate is constant.
        public enum Mode: String, Hashable, Sendable, Codable {
            /// Every packet has the same bit rate (CBR, PCM).
            case constant
            /// Packets differ (VBR, ABR, most AAC).
            case variable
        }
        /// How the value was found.
        public enum Source: String, Hashable, Sendable, Codable {
            /// The frame headers' common bit rate (CBR) or the PCM rate: exact.
            case frameHeader
            /// Byte and frame totals from a Xing or VBRI header: exact for the whole file.
            case vbrHeader
            /// The mean over the packets seen so far; keeps changing as packets arrive.
            case runningMean
        }
        /// Bits per second, not rounded.
        public var bitsPerSecond: Double
        /// Constant or variable.
        public var mode: Mode
        /// How the value was found.
        public var source: Source
    }

    /// The coding of the audio, once the first packet's header has been read.
    public var format: AudioFormat?
    /// Byte offset of the first audio packet (after leading tags and any Xing/VBRI frame).
    public var dataOffset: Int64?
    /// Bytes of audio packets in the whole stream, and where that figure came from.
    public var audioDataByteCount: Int64?
    /// Packets in the whole stream (the Xing/VBRI frame excluded).
    public var packetCount: Int64?
    /// Where `packetCount` and `audioDataByteCount` came from.
    public var totalsSource: Source?
    /// Duration in seconds after gapless trimming, where known.
    public var duration: Double?
    /// Where `duration` came from.
    public var durationSource: Source?
    /// The bit rate, once a packet has been seen.
    public var bitRate: BitRate?
    /// Frames the encoder added at the start (LAME tag). An MP3 decoder adds 529 frames of its
    /// own, so a gapless player drops `encoderDelay + 529` frames from the start of its output.
    public var encoderDelay: Int?
    /// Frames the encoder added at the end (LAME tag); a gapless player drops
    /// `encoderPadding - 529` frames from the end of its output.
    public var encoderPadding: Int?
    /// Packets the Xing/Info header states (its own frame excluded), or `nil` without one. Gapless
    /// trimming (libmpg123's, and `GaplessTrim`'s) applies within these packets' frames only:
    /// packets past them (audio appended to the file later) play whole.
    public var statedPacketCount: Int64?
    /// Frames (samples per channel) after gapless trimming, where the total is known.
    public var trimmedFrameCount: Int64?
    /// Title, artist and album from the tags seen so far.
    public var tags = AudioTags()
    /// Chapters the file lists (MP4), in order; empty when it lists none.
    public var chapters: [AudioChapter] = []
    /// The title of the chained Ogg link being parsed, from its comment header ("Artist -
    /// Title", or the title alone); each new link sets it anew, and the player tells it as a
    /// title change where the link's audio starts (as an ICY `StreamTitle`).
    public var linkTitle: StreamTitle?
    /// Whether a player can seek by time: the format has fixed-duration packets and a way to
    /// find a byte offset for a time (CBR, a Xing/VBRI table, PCM), given a seekable source.
    public var isSeekableByTime = false
    /// Bytes skipped as unrecognisable junk between packets (resynchronisation).
    public var junkByteCount: Int64 = 0

    /// Creates an empty set of properties.
    public init() {}

    /// Forgets the totals, which a live stream does not have (a station relaying a file sends
    /// its Xing header's figures, which are the file's).
    package mutating func forgetTotals() {
        (duration, durationSource, packetCount, audioDataByteCount, totalsSource, trimmedFrameCount) = (nil, nil, nil, nil, nil, nil)
    }
}
