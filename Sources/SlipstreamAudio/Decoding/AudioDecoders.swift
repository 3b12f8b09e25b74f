/// The one place a decoder is chosen for a stream's format: the player, `StreamDecoding` and
/// tools all make theirs here.
///
/// A new codec is one new file: a `SelectableAudioDecoder` saying which formats it takes, and
/// its line in `available`.
public enum AudioDecoders {
    /// Every decoder there is, asked in order: libmpg123 for MPEG audio (Layers I-III),
    /// libfaad2 for ADTS AAC, a converter for WAV PCM, libFLAC for FLAC.
    static var available: [any SelectableAudioDecoder.Type] {
        [MP3Decoder.self, AACDecoder.self, VorbisDecoder.self, OpusDecoder.self, PCMPassthroughDecoder.self, FLACDecoder.self]
    }

    /// A decoder for `format` that outputs `sampleType` PCM at the stream's rate and channel
    /// count: the first of `available` that takes the format. Throws `.unsupportedFormat`,
    /// naming the codec, for a format none of them takes (or one whose variant the decoder
    /// that takes the codec refuses, e.g. AAC with 9 channels).
    public static func make(for format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError)
        -> any AudioDecoder
    {
        guard let decoder = available.first(where: { $0.decodes(format) }) else {
            throw AudioDecoderError(.unsupportedFormat, "no decoder for \(format.codecDescription)", codec: format.codecDescription)
        }
        return try decoder.init(format: format, sampleType: sampleType)
    }
}

/// A decoder `AudioDecoders` can choose: which formats it takes, and how it is made for one.
package protocol SelectableAudioDecoder: AudioDecoder {
    /// Whether this decoder is the one for streams of `format` (by codec: a variant it cannot
    /// handle is refused by `init`, with the reason).
    static func decodes(_ format: AudioFormat) -> Bool

    /// A decoder for a stream of `format` that outputs `sampleType` PCM.
    init(format: AudioFormat, sampleType: PCMFormat.SampleType) throws(AudioDecoderError)
}
