import CSoxr

/// Converts interleaved PCM of one rate and channel count to another (the sample type stays),
/// for an output that keeps one format when the stream's changes (a WAV file, a pipe): channels
/// are mixed here (mono copied to every channel, more channels averaged down, channels an
/// upmix has no source for left silent), the rate is changed by libsoxr. Blocks of any size go
/// in, one after the other as one signal; `flush()` gives what the resampler still holds at the
/// end of it. Nothing is allocated per block once the buffers have grown to the block size.
/// libsoxr is loaded when the first converter that resamples is made (see CSoxr's shim.h).
///
/// Why libsoxr rather than speexdsp, the other resampler Debian ships for this:
/// - quality: its default recipe (HQ: 20-bit precision, linear phase, flat to 91% of the
///   Nyquist frequency, images and aliases below -120 dB) is transparent, where speexdsp's
///   levels trade quality for CPU and its best stays short of that;
/// - a streaming API (`soxr_process`) that takes blocks of any size, lines its output up with
///   the input (the filter's delay is taken out) and flushes the tail at the end of input;
/// - 32-bit floats in and out, so mixing and the conversion to and from 16-bit integers (with
///   clipping) happen here, once;
/// - wide use: SoX's own `rate` effect, ffmpeg's libswresample (`resampler=soxr`), PulseAudio
///   and PipeWire's resampler choices.
final class PCMConverter {
    /// What goes in and what comes out.
    let input: PCMFormat
    let output: PCMFormat
    private let buffer: PCMBuffer
    /// The resampler; nil when only the channels change.
    private let resampler: soxr_t?
    /// Channels the resampler works on: the fewer of the input's and the output's (mixed down
    /// before resampling, copied up after).
    private let channels: Int
    /// The input mixed to `channels` as floats, and the resampler's output.
    private var mixed = FloatBuffer()
    private var resampled = FloatBuffer()

    /// A converter from `input` to `output` (of the same sample type). Throws
    /// `.formatNotSupported` when libsoxr cannot resample between the two rates.
    init(from input: PCMFormat, to output: PCMFormat) throws(AudioOutputError) {
        precondition(input.sampleType == output.sampleType, "PCMConverter converts rates and channels, not sample types")
        precondition(input.channels > 0 && output.channels > 0, "PCMConverter: no channels")
        self.input = input
        self.output = output
        channels = min(input.channels, output.channels)
        buffer = PCMBuffer(format: output)
        if input.sampleRate == output.sampleRate {
            resampler = nil
            return
        }
        var error: soxr_error_t?
        let made = slipstream_soxr_create(Double(input.sampleRate), Double(output.sampleRate), UInt32(channels), UInt(SOXR_HQ), &error)
        guard let made, error == nil else {
            if let made { slipstream_soxr_delete(made) }
            throw AudioOutputError(
                .formatNotSupported,
                "cannot convert \(input) to \(output): libsoxr: \(String(cString: slipstream_soxr_message(error)))")
        }
        resampler = made
    }

    deinit {
        if let resampler { slipstream_soxr_delete(resampler) }
        mixed.deallocate()
        resampled.deallocate()
    }

    /// The frames of `block` (in the input format) converted; valid until the next call. The
    /// resampler holds back the last few frames' worth (its filter's delay) until more come or
    /// `flush()`.
    func convert(_ block: PCMBuffer) -> PCMBuffer {
        buffer.removeAll()
        let frames = block.frameCount
        guard frames > 0 else { return buffer }
        mix(block.bytes, frames: frames)
        guard let resampler else {
            store(mixed.pointer, frames: frames)
            return buffer
        }
        resample(resampler, frames: frames)
        return buffer
    }

    /// What the resampler still holds, converted: the end of the signal (the end of the stream,
    /// or of this format). Valid until the next call; the next block starts a new signal.
    func flush() -> PCMBuffer {
        buffer.removeAll()
        guard let resampler else { return buffer }
        resample(resampler, frames: nil)
        _ = slipstream_soxr_clear(resampler)
        return buffer
    }

    /// Forgets what the resampler holds (a seek): the next block starts a new signal.
    func reset() {
        if let resampler { _ = slipstream_soxr_clear(resampler) }
    }

    /// Runs the `frames` mixed frames (nil: the end of input) through the resampler and stores
    /// everything it gives.
    private func resample(_ resampler: soxr_t, frames: Int?) {
        var taken = 0
        while true {
            // Room for this block's share and the filter's tail; grown (and asked again) when
            // the resampler fills it.
            let room = max(
                Int(Double(frames ?? 0) * Double(output.sampleRate) / Double(input.sampleRate)) + 1024, resampled.capacity / channels)
            resampled.reserve(room * channels)
            var used = 0, made = 0
            let error: soxr_error_t?
            if let frames {
                error = slipstream_soxr_process(
                    resampler, mixed.pointer + taken * channels, frames - taken, &used, resampled.pointer, room, &made)
            } else {
                error = slipstream_soxr_process(resampler, nil, 0, nil, resampled.pointer, room, &made)
            }
            // An error (none is expected of a resampler once made) drops the rest of this block.
            guard error == nil else { return }
            taken += used
            store(resampled.pointer, frames: made)
            if made < room, taken >= (frames ?? 0) || used == 0 { return }
            if made == room { resampled.reserve(2 * room * channels) }
        }
    }

    /// Mixes `frames` frames of `source` (input format) to `channels` floats each, into `mixed`.
    private func mix(_ source: UnsafeRawBufferPointer, frames: Int) {
        mixed.reserve(frames * channels)
        let target = mixed.pointer
        let inputChannels = input.channels
        for frame in 0..<frames {
            let base = frame * inputChannels
            for channel in 0..<channels {
                if inputChannels == channels {
                    target[frame * channels + channel] = value(source, base + channel)
                } else {
                    // Input channels channel, channel + channels, ... fold into this one.
                    var sum: Float = 0
                    var folded = 0
                    var index = channel
                    while index < inputChannels {
                        sum += value(source, base + index)
                        folded += 1
                        index += channels
                    }
                    target[frame * channels + channel] = sum / Float(folded)
                }
            }
        }
    }

    /// Appends `frames` frames of `channels` floats to the output buffer, copied up to the
    /// output's channels and stored as its sample type.
    private func store(_ source: UnsafeMutablePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        let outputChannels = output.channels
        let room = buffer.reserve(frames * output.bytesPerFrame)
        for frame in 0..<frames {
            for channel in 0..<outputChannels {
                let value: Float =
                    channel < channels
                    ? source[frame * channels + channel] : channels == 1 ? source[frame] : 0
                let index = frame * outputChannels + channel
                switch output.sampleType {
                case .signed16:
                    let scaled = (value * 32768).rounded()
                    room.storeBytes(of: Int16(min(max(scaled, -32768), 32767)), toByteOffset: index * 2, as: Int16.self)
                case .float32:
                    room.storeBytes(of: value, toByteOffset: index * 4, as: Float.self)
                }
            }
        }
        buffer.commit(frames * output.bytesPerFrame)
    }

    /// Sample `index` of `source` (input format) as a float from -1 to 1.
    @inline(__always)
    private func value(_ source: UnsafeRawBufferPointer, _ index: Int) -> Float {
        switch input.sampleType {
        case .signed16: Float(source.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
        case .float32: source.load(fromByteOffset: index * 4, as: Float.self)
        }
    }
}

/// Floats in one allocation that grows (never shrinks) to the most asked for.
private struct FloatBuffer {
    private(set) var pointer = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
    private(set) var capacity = 4096

    /// Makes room for at least `count` floats (what was there is not kept).
    mutating func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        capacity = max(count, 2 * capacity)
        pointer = .allocate(capacity: capacity)
    }

    func deallocate() { pointer.deallocate() }
}
