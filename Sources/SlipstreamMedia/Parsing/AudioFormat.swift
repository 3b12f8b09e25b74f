/// The coding of a stream's audio: what a decoder needs to be set up, in the spirit of
/// AudioStreamBasicDescription.
public struct AudioFormat: Hashable, Sendable, Codable {
    /// The codec family.
    public enum Codec: String, Hashable, Sendable, Codable {
        /// MPEG-1/2/2.5 Layer I.
        case mp1
        /// MPEG-1/2/2.5 Layer II.
        case mp2
        /// MPEG-1/2/2.5 Layer III.
        case mp3
        /// AAC in ADTS frames (each packet is a whole ADTS frame, header included).
        case aac
        /// Uncompressed PCM from a WAV, AIFF or CAF file (integer or floating point, see `pcm`).
        case pcm
        /// Vorbis (in Ogg); `magicCookie` holds its three header packets.
        case vorbis
        /// Opus (in Ogg); `magicCookie` holds the OpusHead packet.
        case opus
        /// FLAC (native or in Ogg); `magicCookie` holds the STREAMINFO block.
        case flac
        /// AAC as raw access units (MP4/M4A, fMP4); `magicCookie` holds the AudioSpecificConfig.
        case aacRaw
    }

    /// How uncompressed samples are laid out (WAV, AIFF and CAF).
    public struct PCMLayout: Hashable, Sendable, Codable {
        /// Bits per sample in the container (8, 16, 24, 32 or 64).
        public var bitsPerSample: Int
        /// Bytes per frame (one sample for every channel).
        public var bytesPerFrame: Int
        /// Samples are IEEE floating point (otherwise integers).
        public var isFloat: Bool
        /// Samples are big-endian (RIFX, AIFF, most CAF); otherwise little-endian.
        public var isBigEndian: Bool
        /// Integer samples are unsigned, offset by half their range (WAV's 8-bit ones);
        /// otherwise two's complement (AIFF's and CAF's 8-bit ones too).
        public var isUnsigned: Bool

        /// A layout; integers are signed unless `isUnsigned`.
        public init(bitsPerSample: Int, bytesPerFrame: Int, isFloat: Bool, isBigEndian: Bool, isUnsigned: Bool = false) {
            self.bitsPerSample = bitsPerSample
            self.bytesPerFrame = bytesPerFrame
            self.isFloat = isFloat
            self.isBigEndian = isBigEndian
            self.isUnsigned = isUnsigned
        }
    }

    /// The codec family.
    public var codec: Codec
    /// A human description of the codec variant, e.g. "MPEG-2 Layer III" or "AAC LC (ADTS)".
    public var codecDescription: String
    /// Sample rate in Hz.
    public var sampleRate: Int
    /// Number of channels.
    public var channels: Int
    /// Frames (samples per channel) in each packet; for WAV, in every packet but the last.
    public var framesPerPacket: Int
    /// The sample layout for PCM; `nil` for compressed codecs.
    public var pcm: PCMLayout?
    /// The codec's setup bytes from the container, which its decoder needs before the first
    /// packet (in the spirit of Core Audio's magic cookie): see each `Codec`; empty for MPEG
    /// audio, ADTS and PCM, whose packets describe themselves. Not encoded (`Codable`): they
    /// are no description (a Vorbis stream's run to kilobytes); decoded as empty.
    public var magicCookie: [UInt8]

    private enum CodingKeys: String, CodingKey {
        case codec, codecDescription, sampleRate, channels, framesPerPacket, pcm
    }

    /// Creates a format.
    public init(
        codec: Codec, codecDescription: String, sampleRate: Int, channels: Int,
        framesPerPacket: Int, pcm: PCMLayout? = nil, magicCookie: [UInt8] = []
    ) {
        self.codec = codec
        self.codecDescription = codecDescription
        self.sampleRate = sampleRate
        self.channels = channels
        self.framesPerPacket = framesPerPacket
        self.pcm = pcm
        self.magicCookie = magicCookie
    }

    /// Decodes a format encoded without its setup bytes (`magicCookie` is empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            codec: try container.decode(Codec.self, forKey: .codec),
            codecDescription: try container.decode(String.self, forKey: .codecDescription),
            sampleRate: try container.decode(Int.self, forKey: .sampleRate),
            channels: try container.decode(Int.self, forKey: .channels),
            framesPerPacket: try container.decode(Int.self, forKey: .framesPerPacket),
            pcm: try container.decodeIfPresent(PCMLayout.self, forKey: .pcm))
    }
}
