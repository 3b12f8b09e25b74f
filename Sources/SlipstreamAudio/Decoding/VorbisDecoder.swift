import CVorbis

/// Decodes Vorbis packets from the Ogg parser with libvorbis in push mode (a packet in, its PCM
/// out; no read callbacks), to native 16-bit integers (converted as libvorbisfile's `ov_read`
/// converts, so the output equals `oggdec`'s) or 32-bit floats, its channels in the output's
/// (WAV) order.
///
/// The format's `magicCookie` holds the three header packets, Xiph-laced. Each packet gives the
/// frames the parser counted (`packet.frameCount`): libvorbis's output, cut at the end where
/// the parser trimmed the stream's last packet by its granule position; silence where libvorbis
/// gives less (the first packet after `reset()`).
package final class VorbisDecoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    /// The first packet after a reset only primes the overlap.
    package let primingPacketCount = 1
    package let decoderDelay = 0

    private let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    private let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    private let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private var isSynthesisReady = false
    private var packetNumber: Int64 = 3
    /// For each output channel, libvorbis's plane it takes: the stream's Vorbis order laid out
    /// in the output's (WAV) order (`VorbisChannelOrder`).
    private let planeOrder: [Int]

    /// Creates a decoder for the Vorbis stream of `format` that outputs `sampleType` PCM.
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        try AudioDecoderError.requireLibrary(slipstream_vorbis_loaded(), slipstream_vorbis_missing, codec: format.codecDescription)
        outputFormat = PCMFormat(sampleRate: format.sampleRate, channels: format.channels, sampleType: sampleType)
        planeOrder = VorbisChannelOrder.sources(channels: format.channels) ?? Array(0..<format.channels)
        slipstream_vorbis_info_init(info)
        slipstream_vorbis_comment_init(comment)
        guard format.codec == .vorbis, let headers = XiphLacing.unlaceThree(format.magicCookie) else {
            throw Self.failure(format, "no Vorbis headers in the format's setup bytes")
        }
        for (number, header) in headers.enumerated() {
            let status = format.magicCookie.withUnsafeBytes { cookie in
                var packet = Self.packet(UnsafeRawBufferPointer(rebasing: cookie[header]), number: Int64(number))
                return slipstream_vorbis_synthesis_headerin(info, comment, &packet)
            }
            guard status == 0 else { throw Self.failure(format, "libvorbis refused header \(number + 1) (status \(status))") }
        }
        guard info.pointee.channels == format.channels, info.pointee.rate == format.sampleRate,
            slipstream_vorbis_synthesis_init(dsp, info) == 0
        else { throw Self.failure(format, "libvorbis cannot set up \(format.channels) channels at \(format.sampleRate) Hz") }
        isSynthesisReady = true
        slipstream_vorbis_block_init(dsp, block)
    }

    deinit {
        if isSynthesisReady {
            slipstream_vorbis_block_clear(block)
            slipstream_vorbis_dsp_clear(dsp)
        }
        slipstream_vorbis_comment_clear(comment)
        slipstream_vorbis_info_clear(info)
        info.deallocate()
        comment.deallocate()
        dsp.deallocate()
        block.deallocate()
    }

    /// Vorbis.
    package static func decodes(_ format: AudioFormat) -> Bool { format.codec == .vorbis }

    /// `undecodable` where libvorbis refuses the packet (`vorbis_synthesis` or
    /// `vorbis_synthesis_blockin` gives a negative status: not audio, a bad packet); `priming`
    /// where it gives no audio yet (the first packet after a start or `reset()`).
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let width = outputFormat.bytesPerFrame
        let room = output.reserve(packet.frameCount * width)
        var written = 0
        var oggPacket = Self.packet(bytes, number: packetNumber)
        packetNumber += 1
        var outcome = DecodeOutcome.undecodable
        if slipstream_vorbis_synthesis(block, &oggPacket) == 0, slipstream_vorbis_synthesis_blockin(dsp, block) == 0 {
            outcome = .priming
            var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            while true {
                let available = Int(slipstream_vorbis_synthesis_pcmout(dsp, &channels))
                guard available > 0, let channels else { break }
                let count = min(available, packet.frameCount - written)
                outcome = .decoded
                if count > 0 { convert(channels, count: count, into: room.baseAddress! + written * width) }
                written += max(count, 0)
                slipstream_vorbis_synthesis_read(dsp, Int32(available))
            }
        }
        if written < packet.frameCount {
            (room.baseAddress! + written * width).initializeMemory(
                as: UInt8.self, repeating: 0, count: (packet.frameCount - written) * width)
        }
        output.commit(packet.frameCount * width)
        return outcome
    }

    package func reset() {
        slipstream_vorbis_synthesis_restart(dsp)
    }

    /// Interleaves `count` frames of libvorbis's planar floats into `target`: floats as they are,
    /// or 16-bit integers rounded to nearest and clipped, as `ov_read` does. Stereo, nearly every
    /// stream, gets its own loop over frames (both planes at once), which the compiler vectorizes.
    private func convert(_ planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>, count: Int, into target: UnsafeMutableRawPointer) {
        let channels = outputFormat.channels
        if outputFormat.sampleType == .float32 {
            let samples = target.assumingMemoryBound(to: Float.self)
            for channel in 0..<channels {
                let plane = planes[planeOrder[channel]]!
                for i in 0..<count { samples[i * channels + channel] = plane[i] }
            }
            return
        }
        let samples = target.assumingMemoryBound(to: Int16.self)
        if channels == 2 {
            let left = planes[0]!, right = planes[1]!
            for i in 0..<count {
                samples[2 * i] = Int16Rounding.sample(left[i])
                samples[2 * i + 1] = Int16Rounding.sample(right[i])
            }
            return
        }
        for channel in 0..<channels {
            let plane = planes[planeOrder[channel]]!
            for i in 0..<count { samples[i * channels + channel] = Int16Rounding.sample(plane[i]) }
        }
    }

    /// An `ogg_packet` for libvorbis over `bytes` (which it only reads).
    private static func packet(_ bytes: UnsafeRawBufferPointer, number: Int64) -> ogg_packet {
        let start = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        return ogg_packet(packet: start, bytes: bytes.count, b_o_s: number == 0 ? 1 : 0, e_o_s: 0, granulepos: -1, packetno: number)
    }

    private static func failure(_ format: AudioFormat, _ reason: String) -> AudioDecoderError {
        AudioDecoderError(.initializationFailed, "VorbisDecoder: \(reason)", codec: format.codecDescription)
    }
}
