/// Turns the packets of one stream (as the parser delimits them) into interleaved PCM.
///
/// Not thread-safe: the player's playback thread owns its decoder. Implementations hold a C
/// decoder handle and release it in `deinit`.
public protocol AudioDecoder: AnyObject {
    /// The PCM this decoder appends; fixed for the life of the decoder.
    var outputFormat: PCMFormat { get }

    /// How many packets before a seek point must be fed (and their output discarded) after
    /// `reset()` for the output from the seek point on to be exact (MP3's bit reservoir reaches
    /// back up to 511 bytes; 0 for codecs without inter-packet state).
    var primingPacketCount: Int { get }

    /// Samples of delay the decoder itself adds before the first real output sample (529 for
    /// libmpg123's Layer III synthesis, 0 for PCM); gapless trimming adds it to the encoder delay.
    var decoderDelay: Int { get }

    /// Decodes one whole packet, `bytes` as the parser described it in `packet`, and appends
    /// exactly `packet.frameCount` frames of PCM to `output`: silence where the decoder cannot
    /// produce audio yet (e.g. the first packets after `reset()`, whose bit reservoir is
    /// missing), so the caller can always tell which stream frame each output frame is.
    /// `packet.startFrame`, where known, lets a decoder line up its internal state after
    /// `reset()` so that its output is bit-identical to a decode from the start of the stream.
    ///
    /// Returns whether the packet was decoded, could not be decoded yet (`priming`), or is not
    /// valid data for the codec (`undecodable`: counted by the player, which stops when most of a
    /// stream is). Throws only for errors that end playback (a corrupt packet is decoded as well
    /// as it can be, or as silence).
    @discardableResult
    func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome

    /// Forgets all stream state: the next packet follows a discontinuity (a seek or reconnect).
    func reset()
}
