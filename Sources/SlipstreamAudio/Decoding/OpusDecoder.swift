import COpus

/// Decodes Opus packets from the Ogg parser with libopus (its multistream decoder, for any
/// channel mapping) at 48 kHz, to native 16-bit integers or 32-bit floats, with the output gain
/// of the `OpusHead` (the format's `magicCookie`) applied as `opusdec` applies it.
///
/// Each packet gives the frames the parser counted (`packet.frameCount`): after the stream's
/// first pre-skip frames are dropped (from the packets a new decoder decodes first) and cut at
/// the end where the granule position trims it; silence where libopus fails.
package final class OpusDecoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    /// Pre-roll after a seek: 16 packets of the usual 20 ms. RFC 7845's 80 ms makes the audio
    /// right, but measured here the decoder's state takes about 300 ms to match a decode from
    /// the start within 1 LSB (with 80 ms, samples differ by up to 2,500 LSB for 0.4 s).
    package let primingPacketCount = 16
    package let decoderDelay = 0

    /// The largest packet duration (120 ms at 48 kHz).
    private static let maximumFrames = 5760

    private let decoder: OpaquePointer
    /// One packet's decoded samples (interleaved), before they are cut to the frames kept.
    private let scratch: UnsafeMutableRawPointer
    /// Pre-skip frames still to drop.
    private var skipLeft: Int
    private let preSkip: Int

    /// Creates a decoder for the Opus stream of `format` that outputs `sampleType` PCM.
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        try AudioDecoderError.requireLibrary(slipstream_opus_loaded(), slipstream_opus_missing, codec: format.codecDescription)
        let head = format.magicCookie.withUnsafeBytes { OpusHead($0) }
        guard format.codec == .opus, let head, head.channels == format.channels else {
            throw AudioDecoderError(
                .initializationFailed, "OpusDecoder: no OpusHead in the format's setup bytes", codec: format.codecDescription)
        }
        outputFormat = PCMFormat(sampleRate: OpusHead.sampleRate, channels: head.channels, sampleType: sampleType)
        var streams: Int32 = 1, coupled: Int32 = head.channels == 2 ? 1 : 0
        var mapping: [UInt8] = [0, 1]
        if head.mappingFamily != 0 {
            streams = Int32(format.magicCookie[19])
            coupled = Int32(format.magicCookie[20])
            mapping = Array(format.magicCookie[21..<21 + head.channels])
            // Family 1 is in Vorbis order: the output's channels are taken in WAV order instead
            // (libopus lays out the output by this table, so reordering it costs nothing).
            if head.mappingFamily == 1, let sources = VorbisChannelOrder.sources(channels: head.channels) {
                mapping = sources.map { mapping[$0] }
            }
        }
        var status: Int32 = 0
        guard let decoder = slipstream_opus_multistream_decoder_create(48_000, Int32(head.channels), streams, coupled, mapping, &status),
            status == OPUS_OK
        else {
            throw AudioDecoderError(
                .initializationFailed, "libopus: cannot decode \(head.channels) channels in \(streams) streams (status \(status))",
                codec: format.codecDescription, libraryStatus: Int(status))
        }
        if head.outputGain != 0 { _ = slipstream_opus_set_gain(decoder, Int32(head.outputGain)) }
        self.decoder = decoder
        scratch = .allocate(byteCount: Self.maximumFrames * head.channels * 4, alignment: 16)
        preSkip = head.preSkip
        skipLeft = head.preSkip
    }

    deinit {
        slipstream_opus_multistream_decoder_destroy(decoder)
        scratch.deallocate()
    }

    /// Opus.
    package static func decodes(_ format: AudioFormat) -> Bool { format.codec == .opus }

    /// `undecodable` where libopus refuses the packet (a negative status: `OPUS_INVALID_PACKET`,
    /// ...); `priming` for an empty one (silence, no fault of the stream). libopus takes most
    /// bytes as some packet: random bytes after a valid table of contents byte decode, as noise.
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let width = outputFormat.bytesPerFrame
        let room = output.reserve(packet.frameCount * width)
        var decoded = -1
        if let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty {
            let count = Int32(bytes.count), frames = Int32(Self.maximumFrames)
            decoded = Int(
                outputFormat.sampleType == .signed16
                    ? slipstream_opus_multistream_decode(decoder, data, count, scratch.assumingMemoryBound(to: Int16.self), frames, 0)
                    : slipstream_opus_multistream_decode_float(decoder, data, count, scratch.assumingMemoryBound(to: Float.self), frames, 0)
            )
        }
        let outcome: DecodeOutcome = bytes.isEmpty ? .priming : decoded < 0 ? .undecodable : .decoded
        decoded = max(decoded, 0)
        let skipped = min(skipLeft, decoded)
        skipLeft -= skipped
        let kept = min(decoded - skipped, packet.frameCount)
        room.baseAddress!.copyMemory(from: scratch + skipped * width, byteCount: kept * width)
        if kept < packet.frameCount {
            (room.baseAddress! + kept * width).initializeMemory(as: UInt8.self, repeating: 0, count: (packet.frameCount - kept) * width)
        }
        output.commit(packet.frameCount * width)
        return outcome
    }

    /// Forgets the stream's state; the pre-skip is dropped again only if the next packet is the
    /// stream's first.
    package func reset() {
        _ = slipstream_opus_reset(decoder)
        skipLeft = 0
    }
}
