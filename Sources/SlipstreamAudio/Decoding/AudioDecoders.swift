/// Makes the decoder for a stream's format.
public enum AudioDecoders {
    /// A decoder for `format` that outputs `sampleType` PCM at the stream's rate and channel
    /// count: libmpg123 for MPEG audio (Layers I-III), libfaad2 for ADTS AAC, a converter for
    /// WAV PCM. Throws `.unsupportedFormat`, naming the codec, for a format none of them takes.
    public static func make(for format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) -> any AudioDecoder {
        switch format.codec {
        case .mp1, .mp2, .mp3:
            return try MP3Decoder(format: format, sampleType: sampleType)
        case .pcm:
            return try PCMPassthroughDecoder(format: format, sampleType: sampleType)
        case .aac:
            return try AACDecoder(format: format, sampleType: sampleType)
        }
    }
}
