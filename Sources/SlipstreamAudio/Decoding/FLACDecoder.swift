import CFLAC

/// Decodes FLAC frames (one parser packet each, native or from Ogg) with libFLAC, to native
/// 16-bit integers or 32-bit floats at the stream's rate and channel count.
///
/// libFLAC reads through a callback; here it is fed, not left to pull: each packet's bytes are
/// all it can read while it decodes that frame (push mode, no blocking). It is set up once from
/// the format's magic cookie (the 34-byte STREAMINFO), given as a stream of its own: `fLaC` and
/// the one metadata block. To 16 bits, wider samples keep their top 16 bits (as
/// `PCMPassthroughDecoder` and `flac -d` piped through sox without dither); to floats, samples
/// are scaled by 2^(bits-1). Frames are independent: nothing to prime or trim. A damaged frame
/// (libFLAC reports its CRC mismatch) comes out as libFLAC makes it, or as silence.
package final class FLACDecoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    package let primingPacketCount = 0
    package let decoderDelay = 0

    private let codecDescription: String
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    /// The bytes libFLAC may read now, and how many it has read.
    private var input = UnsafeRawBufferPointer(start: nil, count: 0)
    private var inputUsed = 0
    /// Where the frame being decoded goes, and how many frames fit there.
    private var room = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var roomFrames = 0
    private var framesWritten = 0
    /// libFLAC called its error callback while decoding the packet.
    private var hadError = false

    /// Creates a decoder for a `.flac` stream of `format`, whose magic cookie is its STREAMINFO.
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        let info = format.magicCookie.withUnsafeBytes { FLACStreamInfo($0) }
        guard format.codec == .flac, let info, info.channels == format.channels, info.sampleRate == format.sampleRate else {
            throw AudioDecoderError(
                .unsupportedFormat, "FLACDecoder: \(format.codecDescription) has no valid STREAMINFO", codec: format.codecDescription)
        }
        try AudioDecoderError.requireLibrary(slipstream_flac_loaded(), slipstream_flac_missing, codec: format.codecDescription)
        guard let decoder = slipstream_FLAC__stream_decoder_new() else {
            throw AudioDecoderError(.initializationFailed, "libFLAC: cannot create a decoder", codec: format.codecDescription)
        }
        self.decoder = decoder
        codecDescription = format.codecDescription
        outputFormat = PCMFormat(sampleRate: info.sampleRate, channels: info.channels, sampleType: sampleType)
        let status = slipstream_FLAC__stream_decoder_init_stream(
            decoder, Self.read, nil, nil, nil, nil, Self.write, nil, Self.error, Unmanaged.passUnretained(self).toOpaque())
        // "fLaC", then STREAMINFO as the last metadata block (type 0, 34 bytes).
        let stream = Array("fLaC".utf8) + [0x80, 0, 0, UInt8(FLACStreamInfo.size)] + format.magicCookie.prefix(FLACStreamInfo.size)
        let read = stream.withUnsafeBytes { bytes in
            input = bytes
            inputUsed = 0
            defer { input = UnsafeRawBufferPointer(start: nil, count: 0) }
            return slipstream_FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0
        }
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK, read,
            slipstream_FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEARCH_FOR_FRAME_SYNC
        else {
            // deinit deletes the decoder: the object is whole by now.
            throw AudioDecoderError(
                .initializationFailed, "libFLAC: cannot read the STREAMINFO of \(codecDescription)", codec: codecDescription)
        }
    }

    deinit { slipstream_FLAC__stream_decoder_delete(decoder) }

    /// FLAC, native or in Ogg.
    package static func decodes(_ format: AudioFormat) -> Bool { format.codec == .flac }

    /// `undecodable` where libFLAC reports an error (a lost sync, a bad header, a CRC mismatch)
    /// or writes no frame.
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let wanted = packet.frameCount * outputFormat.bytesPerFrame
        room = output.reserve(wanted)
        roomFrames = packet.frameCount
        framesWritten = 0
        input = bytes
        inputUsed = 0
        hadError = false
        let decoded = slipstream_FLAC__stream_decoder_process_single(decoder) != 0
        let outcome: DecodeOutcome = decoded && !hadError && (framesWritten > 0 || packet.frameCount == 0) ? .decoded : .undecodable
        let written = framesWritten * outputFormat.bytesPerFrame
        if written < wanted { (room.baseAddress! + written).initializeMemory(as: UInt8.self, repeating: 0, count: wanted - written) }
        output.commit(wanted)
        // A frame cut short or damaged leaves libFLAC at the end of its input, or partway
        // through: it starts the next packet afresh.
        if !decoded || inputUsed < bytes.count
            || slipstream_FLAC__stream_decoder_get_state(decoder) != FLAC__STREAM_DECODER_SEARCH_FOR_FRAME_SYNC
        {
            _ = slipstream_FLAC__stream_decoder_flush(decoder)
        }
        input = UnsafeRawBufferPointer(start: nil, count: 0)
        room = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        return outcome
    }

    package func reset() {
        _ = slipstream_FLAC__stream_decoder_flush(decoder)
    }

    /// The decoder a callback's client data points to.
    private static func this(_ client: UnsafeMutableRawPointer?) -> FLACDecoder {
        Unmanaged<FLACDecoder>.fromOpaque(client!).takeUnretainedValue()
    }

    /// libFLAC's read callback: what is left of the packet; the end of the stream once it is all read.
    private static let read: FLAC__StreamDecoderReadCallback = { _, buffer, bytes, client in
        let decoder = this(client)
        let count = min(bytes!.pointee, decoder.input.count - decoder.inputUsed)
        bytes!.pointee = count
        guard count > 0 else { return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM }
        UnsafeMutableRawPointer(buffer!).copyMemory(from: decoder.input.baseAddress! + decoder.inputUsed, byteCount: count)
        decoder.inputUsed += count
        return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
    }

    /// libFLAC's write callback: a decoded frame, interleaved into the room for it.
    private static let write: FLAC__StreamDecoderWriteCallback = { _, frame, buffer, client in
        let decoder = this(client)
        let header = frame!.pointee.header
        let channels = min(Int(header.channels), decoder.outputFormat.channels)
        let frames = min(Int(header.blocksize), decoder.roomFrames - decoder.framesWritten)
        let shift = Int32(32 - Int(header.bits_per_sample))
        guard frames > 0, channels == decoder.outputFormat.channels, (0...28).contains(shift), let buffer else {
            return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
        }
        let width = decoder.outputFormat.channels
        let first = decoder.framesWritten * width
        if decoder.outputFormat.sampleType == .signed16 {
            let target = decoder.room.baseAddress!.assumingMemoryBound(to: Int16.self) + first
            for channel in 0..<channels {
                let source = buffer[channel]!
                for i in 0..<frames { target[i * width + channel] = Int16(truncatingIfNeeded: (source[i] << shift) >> 16) }
            }
        } else {
            let target = decoder.room.baseAddress!.assumingMemoryBound(to: Float.self) + first
            for channel in 0..<channels {
                let source = buffer[channel]!
                for i in 0..<frames { target[i * width + channel] = Float(source[i] << shift) / 2_147_483_648 }
            }
        }
        decoder.framesWritten += frames
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    /// libFLAC's error callback: a lost sync, a bad header or a CRC mismatch. The frame comes out
    /// as silence where libFLAC writes nothing, and counts as undecodable; nothing ends playback.
    private static let error: FLAC__StreamDecoderErrorCallback = { _, _, client in this(client).hadError = true }
}
