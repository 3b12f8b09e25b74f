import CFAAD

/// Decodes AAC with libfaad2, to native 16-bit integers or 32-bit floats at the stream's rate
/// and channel count: ADTS frames (one parser packet each, set up by the first frame's header)
/// or raw access units from MP4 (`.aacRaw`, set up with `NeAACDecInit2` from the
/// AudioSpecificConfig in `magicCookie`; explicit SBR decoded at the extension rate, 2048
/// frames a packet, as the parser's format says).
///
/// libfaad2 gives no audio for the first frame after it starts (the frame only primes its
/// overlap); that packet comes out as silence, so the output keeps the stream's length and
/// timing (ffmpeg outputs that first frame, near-silent in encoder-primed streams, instead).
/// ADTS at a core rate of 24 kHz or less is decoded at twice the rate, a mono core in stereo, for
/// the SBR and parametric stereo (HE-AAC v1, v2) that ADTS cannot signal (the parser's format
/// says so: `ADTSHeader.impliesSBR`); implicit SBR in MP4 (no extension in the
/// AudioSpecificConfig) is decoded at the core rate. A mono MP4 stream that turns out to carry
/// parametric stereo is folded back to mono. ADTS states no
/// encoder delay, so nothing is trimmed; MP4's edit list or `iTunSMPB` counts the silent first
/// packet in its delay (ffmpeg's encoder states 1024 frames), so that trimming it leaves
/// `faad`'s output, sample for sample.
package final class AACDecoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    /// One packet: the overlap of the frame before a seek point.
    package let primingPacketCount = 1
    package let decoderDelay = 0

    private let codecDescription: String
    /// The libfaad2 decoder; `isInitialised` once it has read an ADTS header.
    private var handle: NeAACDecHandle?
    private var isInitialised = false
    private var frameInfo = NeAACDecFrameInfo()
    /// The AudioSpecificConfig of raw access units; `nil` for ADTS.
    private var configuration: [UInt8]?
    /// For 16-bit output: libfaad2's floats of one frame, rounded to 16 bits here
    /// (`Int16Rounding`, the integers its own 16-bit output gives, without its `lrintf` call
    /// per sample); nil for float output, which libfaad2 writes straight into the batch.
    private let floats: UnsafeMutableRawBufferPointer?

    /// The most samples one frame gives: 2048 frames (SBR) of 8 channels.
    private static let maximumSamples = 2048 * 8

    /// Creates a decoder for ADTS AAC of `format` that outputs `sampleType` PCM.
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        guard format.codec == .aac || (format.codec == .aacRaw && !format.magicCookie.isEmpty), (1...8).contains(format.channels),
            format.sampleRate > 0
        else {
            throw AudioDecoderError(
                .unsupportedFormat,
                "AACDecoder: \(format.codecDescription) with \(format.channels) channels at \(format.sampleRate) Hz is not AAC it decodes",
                codec: format.codecDescription)
        }
        outputFormat = PCMFormat(sampleRate: format.sampleRate, channels: format.channels, sampleType: sampleType)
        codecDescription = format.codecDescription
        configuration = format.codec == .aacRaw ? format.magicCookie : nil
        floats =
            sampleType == .signed16
            ? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.maximumSamples * 4, alignment: 16) : nil
        handle = try makeHandle()
    }

    deinit {
        if let handle { slipstream_NeAACDecClose(handle) }
        floats?.deallocate()
    }

    /// AAC in ADTS frames or as raw access units.
    package static func decodes(_ format: AudioFormat) -> Bool { format.codec == .aac || format.codec == .aacRaw }

    /// `undecodable` where libfaad2 reports an error (`frameInfo.error`) or gives channels the
    /// stream does not have; `priming` for the frame that only primes its overlap.
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let wanted = packet.frameCount * outputFormat.bytesPerFrame
        // Room for two channels where the stream says one, in case of parametric stereo.
        let room = output.reserve(outputFormat.channels == 1 ? 2 * wanted : wanted)
        if handle == nil { handle = try makeHandle() }
        let (written, outcome) = try decodeFrame(bytes, into: room, limit: wanted)
        if written < wanted { (room.baseAddress! + written).initializeMemory(as: UInt8.self, repeating: 0, count: wanted - written) }
        output.commit(wanted)
        return outcome
    }

    package func reset() {
        if let handle { slipstream_NeAACDecClose(handle) }
        handle = nil
        isInitialised = false
    }

    /// Decodes one ADTS frame or access unit straight into `room`; returns the bytes of PCM it
    /// holds (at most `limit`), 0 when libfaad2 gave nothing or failed, and the outcome. Throws
    /// when libfaad2 would decode the stream at another rate than its format says (a build
    /// without SBR would, at a low rate).
    private func decodeFrame(_ bytes: UnsafeRawBufferPointer, into room: UnsafeMutableRawBufferPointer, limit: Int)
        throws(AudioDecoderError) -> (Int, DecodeOutcome)
    {
        guard let handle, let input = UnsafeMutableRawPointer(mutating: bytes.baseAddress)?.assumingMemoryBound(to: UInt8.self)
        else { return (0, .undecodable) }
        if !isInitialised {
            var rate: UInt = 0
            var channels: UInt8 = 0
            guard slipstream_NeAACDecInit(handle, input, UInt(bytes.count), &rate, &channels) >= 0 else { return (0, .undecodable) }
            guard Int(rate) == outputFormat.sampleRate else {
                throw AudioDecoderError(
                    .initializationFailed, "libfaad2 decodes \(codecDescription) at \(rate) Hz, not \(outputFormat.sampleRate) Hz",
                    codec: codecDescription)
            }
            isInitialised = true
        }
        let decoded = floats ?? UnsafeMutableRawBufferPointer(rebasing: room[...])
        var target: UnsafeMutableRawPointer? = decoded.baseAddress
        _ = slipstream_NeAACDecDecode2(handle, &frameInfo, input, UInt(bytes.count), &target, UInt(decoded.count))
        guard frameInfo.error == 0 else { return (0, .undecodable) }
        // The first frame after a start primes the overlap: no samples, no error.
        guard frameInfo.samples > 0, frameInfo.channels > 0 else { return (0, .priming) }
        let sampleBytes = outputFormat.bytesPerSample
        // Parametric stereo in a mono stream: the two channels are folded back into one.
        let folds = Int(frameInfo.channels) != outputFormat.channels
        guard !folds || (frameInfo.channels == 2 && outputFormat.channels == 1) else { return (0, .undecodable) }
        let count = min(Int(frameInfo.samples) / (folds ? 2 : 1), limit / sampleBytes)
        let samples = decoded.baseAddress!.assumingMemoryBound(to: Float.self)
        if floats != nil {
            let out = room.baseAddress!.assumingMemoryBound(to: Int16.self)
            if folds {
                // Rounded, then halved: libfaad2's own 16-bit samples folded.
                for i in 0..<count {
                    out[i] = Int16((Int32(Int16Rounding.sample(samples[2 * i])) + Int32(Int16Rounding.sample(samples[2 * i + 1]))) / 2)
                }
            } else {
                for i in 0..<count { out[i] = Int16Rounding.sample(samples[i]) }
            }
        } else if folds {
            for i in 0..<count { samples[i] = (samples[2 * i] + samples[2 * i + 1]) / 2 }
        }
        return (count * sampleBytes, .decoded)
    }

    /// A libfaad2 decoder set up for this output: floats (rounded to 16 bits here where asked
    /// for), no downmix, ADTS at a low core rate upsampled (libfaad2's own rule, which the ADTS
    /// parser follows), MP4's implicit SBR at the core rate.
    private func makeHandle() throws(AudioDecoderError) -> NeAACDecHandle {
        try AudioDecoderError.requireLibrary(slipstream_faad_loaded(), slipstream_faad_missing, codec: codecDescription)
        guard let handle = slipstream_NeAACDecOpen() else {
            throw AudioDecoderError(
                .initializationFailed, "libfaad2: cannot create a decoder for \(codecDescription)", codec: codecDescription)
        }
        guard let configuration = slipstream_NeAACDecGetCurrentConfiguration(handle) else {
            slipstream_NeAACDecClose(handle)
            throw AudioDecoderError(.initializationFailed, "libfaad2: no configuration for \(codecDescription)", codec: codecDescription)
        }
        configuration.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
        configuration.pointee.downMatrix = 0
        configuration.pointee.dontUpSampleImplicitSBR = self.configuration == nil ? 0 : 1
        guard slipstream_NeAACDecSetConfiguration(handle, configuration) != 0 else {
            slipstream_NeAACDecClose(handle)
            throw AudioDecoderError(
                .initializationFailed, "libfaad2: cannot set up \(outputFormat) output for \(codecDescription)", codec: codecDescription)
        }
        if var specific = self.configuration {
            var rate: UInt = 0
            var channels: UInt8 = 0
            let status = slipstream_NeAACDecInit2(handle, &specific, UInt(specific.count), &rate, &channels)
            guard status >= 0, Int(rate) == outputFormat.sampleRate else {
                slipstream_NeAACDecClose(handle)
                throw AudioDecoderError(
                    .initializationFailed,
                    "libfaad2: cannot decode \(codecDescription) as \(outputFormat.sampleRate) Hz (its AudioSpecificConfig gives \(rate) Hz)",
                    codec: codecDescription)
            }
            isInitialised = true
        }
        return handle
    }
}
