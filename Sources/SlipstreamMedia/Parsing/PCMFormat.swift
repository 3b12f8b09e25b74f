/// The shape of the interleaved PCM that flows from a decoder to an output: native byte order,
/// channels interleaved frame by frame.
public struct PCMFormat: Hashable, Sendable, CustomStringConvertible {
    /// How one sample is stored.
    public enum SampleType: String, Hashable, Sendable {
        /// 16-bit signed integers (what `mpg123 -w` writes; the default, so a decode is bit-exact).
        case signed16
        /// 32-bit IEEE floats, nominally in -1.0...1.0.
        case float32
    }

    /// Frames per second, e.g. 44100.
    public var sampleRate: Int
    /// Samples per frame, e.g. 2 for stereo.
    public var channels: Int
    /// How each sample is stored.
    public var sampleType: SampleType

    /// Creates a format.
    public init(sampleRate: Int, channels: Int, sampleType: SampleType = .signed16) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleType = sampleType
    }

    /// Bytes in one sample of one channel: 2 or 4.
    public var bytesPerSample: Int { sampleType == .signed16 ? 2 : 4 }
    /// Bytes in one frame (one sample of every channel).
    public var bytesPerFrame: Int { bytesPerSample * channels }

    /// "44100 Hz, 2 ch, s16", for messages.
    public var description: String {
        "\(sampleRate) Hz, \(channels) ch, \(sampleType == .signed16 ? "s16" : "f32")"
    }
}
