import CMPG123

/// libmpg123 wants `mpg123_init()` called once before any handle on versions before 1.27 (a no-op
/// since); a global is initialised exactly once, thread-safely, on first use.
private let mpg123Initialisation: Int32 = mpg123_init()

/// Decodes MPEG audio (Layers I, II and III; MPEG-1, 2 and 2.5) with libmpg123, one parser packet
/// (one whole frame) at a time, in feed mode.
///
/// libmpg123's own gapless trimming, Xing/Info frame handling, resynchronisation and read-ahead
/// are off, so every packet gives exactly its frames (trimming is `GaplessTrim`'s job), and the
/// output format is fixed to the stream's sample rate and channels.
///
/// After `reset()`, decoding resumes at the first packet whose index in the stream is a multiple
/// of 4 (8 for MPEG-2/2.5 Layer III), which lines up libmpg123's synthesis filter with a decode
/// from the start, and a Layer III frame whose bit reservoir reaches back past the packets fed
/// since is decoded as silence (it would be noise). Feed the `primingPacketCount` packets before
/// a seek point and drop their output, and the output from the seek point on equals a decode
/// from the start of the stream sample for sample.
package final class MP3Decoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    package let primingPacketCount: Int
    package let decoderDelay: Int

    private let format: AudioFormat
    /// The libmpg123 decoder: set up but unopened after `init`, open while decoding, and gone
    /// after `reset()` or a packet libmpg123 could not take whole. A fresh one is made for the
    /// next packet then, so that no stale bytes or filter state reach it.
    private var handle: OpaquePointer?
    private var isOpen = false
    /// Packets still to pass over unfed after `reset()`, to line up the synthesis filter.
    private var packetsToSkip = 0
    /// The next opening follows `init` or `reset()` (not a packet libmpg123 choked on), so it
    /// lines the decoder up with the stream.
    private var alignsOnOpen = true
    private var reservoir = BitReservoir()

    /// Creates a decoder for MPEG audio of `format` (codec `.mp1`, `.mp2` or `.mp3`) that outputs
    /// `sampleType` PCM at the stream's own rate and channel count.
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        guard [.mp1, .mp2, .mp3].contains(format.codec) else {
            throw AudioDecoderError(
                .unsupportedFormat, "MP3Decoder: \(format.codecDescription) is not MPEG audio", codec: format.codecDescription)
        }
        guard (1...2).contains(format.channels), format.sampleRate > 0 else {
            throw AudioDecoderError(
                .unsupportedFormat, "MP3Decoder: \(format.codecDescription) with \(format.channels) channels at \(format.sampleRate) Hz",
                codec: format.codecDescription)
        }
        self.format = format
        outputFormat = PCMFormat(sampleRate: format.sampleRate, channels: format.channels, sampleType: sampleType)
        primingPacketCount = Self.primingPacketCount(format)
        // The synthesis filter bank delays Layers I and II by 240 + 1 samples; Layer III's
        // hybrid filter bank adds 288 more (libmpg123's GAPLESS_DELAY, LAME's decoder delay).
        decoderDelay = format.codec == .mp3 ? 529 : 241
        handle = try makeHandle()
    }

    deinit { close() }

    /// MPEG audio: Layers I, II and III.
    package static func decodes(_ format: AudioFormat) -> Bool { [.mp1, .mp2, .mp3].contains(format.codec) }

    /// `undecodable`, and silence, for a frame of another format, one whose Layer III side
    /// information is impossible or promises more main data than it can reach
    /// (`LayerIIISideInfo`; still fed, so that libmpg123's state follows the stream), or one
    /// libmpg123 fails or gives no audio for; `priming` for one passed over to line up, or
    /// whose bit reservoir was not fed.
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let wanted = packet.frameCount * outputFormat.bytesPerFrame
        let room = output.reserve(wanted)
        var written = 0
        var outcome = DecodeOutcome.undecodable
        // A frame of another format is silence here, never fed: libmpg123, set up for this
        // format alone, would print an error for it (a player makes a new decoder when the
        // stream's format changes).
        if let header = MPEGFrameHeader(bytes), header.codec == format.codec, header.sampleRate == format.sampleRate,
            header.channels == format.channels
        {
            if !isOpen { try open(for: bytes, header: header, startFrame: packet.startFrame) }
            if packetsToSkip > 0 {
                packetsToSkip -= 1
                outcome = .priming
            } else {
                let sideInfo = LayerIIISideInfo(bytes, header: header)
                let isComplete = reservoir.feed(bytes, header: header)
                let decoded = decodeFrames(of: bytes, into: isComplete ? room : UnsafeMutableRawBufferPointer(start: nil, count: 0))
                if sideInfo?.isPossible == false || (isComplete && (sideInfo?.fits == false || !decoded.isWhole)) {
                    // Silence, not what libmpg123 made of it: loud noise, as often as not.
                    outcome = .undecodable
                } else {
                    outcome = isComplete ? .decoded : .priming
                    written = decoded.bytes
                }
            }
        }
        if written < wanted { (room.baseAddress! + written).initializeMemory(as: UInt8.self, repeating: 0, count: wanted - written) }
        output.commit(wanted)
        return outcome
    }

    package func reset() {
        close()
        alignsOnOpen = true
    }

    /// Feeds `bytes` (one packet) to libmpg123 and copies the audio it decodes into `room`, as
    /// much as fits; returns the bytes copied, and whether exactly one frame came out with no
    /// error and nothing left over (`isWhole`). Closes the decoder unless it did.
    private func decodeFrames(of bytes: UnsafeRawBufferPointer, into room: UnsafeMutableRawBufferPointer) -> (
        bytes: Int, isWhole: Bool
    ) {
        guard let handle, let base = bytes.baseAddress,
            mpg123_feed(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count) == MPG123_OK.rawValue
        else {
            close()
            return (0, false)
        }
        var written = 0
        var frames = 0
        while true {
            var audio: UnsafeMutablePointer<UInt8>?
            var count = 0
            let status = slipstream_mpg123_decode_frame(handle, &audio, &count)
            if status == MPG123_NEW_FORMAT.rawValue { continue }
            guard status == MPG123_OK.rawValue else {
                let isWhole = status == MPG123_NEED_MORE.rawValue && frames == 1 && slipstream_mpg123_buffer_fill(handle) == 0
                if !isWhole { close() }
                return (written, isWhole)
            }
            frames += 1
            count = min(count, room.count - written)
            if count > 0, let audio {
                (room.baseAddress! + written).copyMemory(from: audio, byteCount: count)
                written += count
            }
        }
    }

    /// A libmpg123 decoder set up for this stream: exactly one packet's frames per packet, at
    /// the stream's rate and channels, in the output sample type.
    private func makeHandle() throws(AudioDecoderError) -> OpaquePointer {
        _ = mpg123Initialisation
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw AudioDecoderError(
                .initializationFailed, "libmpg123: cannot create a decoder: \(Self.message(status))",
                codec: format.codecDescription, libraryStatus: Int(status))
        }
        let encoding = outputFormat.sampleType == .signed16 ? MPG123_ENC_SIGNED_16 : MPG123_ENC_FLOAT_32
        let removed = MPG123_GAPLESS.rawValue | MPG123_AUTO_RESAMPLE.rawValue
        let added =
            MPG123_QUIET.rawValue | MPG123_NO_RESYNC.rawValue | MPG123_NO_READAHEAD.rawValue
            | MPG123_IGNORE_INFOFRAME.rawValue | MPG123_SKIP_ID3V2.rawValue
        guard slipstream_mpg123_param(handle, MPG123_REMOVE_FLAGS, Int(removed)) == MPG123_OK.rawValue,
            slipstream_mpg123_param(handle, MPG123_ADD_FLAGS, Int(added)) == MPG123_OK.rawValue,
            mpg123_format_none(handle) == MPG123_OK.rawValue,
            mpg123_format(handle, format.sampleRate, Int32(format.channels), Int32(encoding.rawValue)) == MPG123_OK.rawValue
        else {
            let status = mpg123_errcode(handle)
            mpg123_delete(handle)
            throw AudioDecoderError(
                .initializationFailed,
                "libmpg123: cannot set up \(outputFormat) output for \(format.codecDescription): \(Self.message(status))",
                codec: format.codecDescription, libraryStatus: Int(status))
        }
        return handle
    }

    /// Opens a feed for a stream whose next packet is `bytes`, starting at raw frame
    /// `startFrame`, on a fresh decoder. Tells libmpg123 the frame size first when the stream is
    /// free format (it would otherwise read ahead into the next packet to find it).
    ///
    /// After `init` or `reset()`, also lines up the synthesis filter with the stream: libmpg123
    /// rotates its 16-slot window buffer by one slot every 32 samples and sums the slots in
    /// memory order, so the rounding of an output sample depends on how many frames came before
    /// it. Decoding starts at the first packet whose index in the stream is a multiple of
    /// `alignment` (the packets before it give silence), so the output is bit-identical to a
    /// decode from the start of the stream once the bit reservoir is full.
    private func open(for bytes: UnsafeRawBufferPointer, header: MPEGFrameHeader, startFrame: Int64?) throws(AudioDecoderError) {
        if self.handle == nil { self.handle = try makeHandle() }
        guard let handle = self.handle else { return }
        var size = -1
        if header.bitRate == 0 {
            size = bytes.count - 4 - (header.isPadded ? (header.layer == 1 ? 4 : 1) : 0)
        }
        guard slipstream_mpg123_param(handle, MPG123_FREEFORMAT_SIZE, size) == MPG123_OK.rawValue,
            mpg123_open_feed(handle) == MPG123_OK.rawValue
        else {
            let status = mpg123_errcode(handle)
            close()
            throw AudioDecoderError(
                .decodingFailed, "libmpg123: cannot open a feed for \(format.codecDescription): \(Self.message(status))",
                codec: format.codecDescription, libraryStatus: Int(status))
        }
        isOpen = true
        packetsToSkip = 0
        if alignsOnOpen, let startFrame {
            let alignment = Self.alignment(format)
            let index = Int(startFrame / Int64(max(format.framesPerPacket, 1)) % Int64(alignment))
            packetsToSkip = (alignment - index) % alignment
        }
        alignsOnOpen = false
    }

    /// Packets after which libmpg123's synthesis window is back where it started: 16 slots of 32
    /// samples, so 4 frames of 1152 or 384 samples, 8 of 576.
    static func alignment(_ format: AudioFormat) -> Int {
        let slots = max(format.framesPerPacket / 32, 1)
        var divisor = 16
        while slots % divisor != 0 { divisor /= 2 }
        return 16 / divisor
    }

    /// Deletes the libmpg123 decoder, and with it the bit reservoir; the next packet gets a
    /// fresh one.
    private func close() {
        if let handle { mpg123_delete(handle) }
        handle = nil
        isOpen = false
        reservoir.reset()
    }

    /// libmpg123's words for an error code.
    private static func message(_ code: Int32) -> String {
        mpg123_plain_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// Packets to feed before a seek point so that its output is exact, for any stream of
    /// `format`: enough of the smallest frames the format allows (32 kbit/s in MPEG-1, 8 in
    /// MPEG-2/2.5) to hold the farthest reach of the bit reservoir (511 bytes, 255 in MPEG-2/2.5),
    /// plus the frames whose filter bank state the seek point's frame overlaps with (one in
    /// MPEG-1, two in MPEG-2/2.5, whose frames have one granule; Layers I and II keep only the
    /// synthesis filter's 512 samples: two Layer I frames, one Layer II frame), plus up to
    /// `alignment - 1` packets passed over to line up the synthesis filter.
    static func primingPacketCount(_ format: AudioFormat) -> Int {
        let lining = alignment(format) - 1
        switch format.codec {
        case .mp1: return 2 + lining
        case .mp2: return 1 + lining
        default: break
        }
        let isMPEG1 = format.sampleRate >= 32000
        let smallestFrame = (isMPEG1 ? 144 * 32000 : 72 * 8000) / max(format.sampleRate, 1)
        let sideInfo = isMPEG1 ? (format.channels == 1 ? 17 : 32) : (format.channels == 1 ? 9 : 17)
        let mainData = max(smallestFrame - 4 - 2 - sideInfo, 1)
        let reach = isMPEG1 ? 511 : 255
        return (reach + mainData - 1) / mainData + (isMPEG1 ? 1 : 2) + lining
    }
}
