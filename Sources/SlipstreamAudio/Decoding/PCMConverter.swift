/// Converts interleaved PCM of one rate and channel count to another (the sample type stays):
/// channels are copied up from mono or mixed down (averaged), the rate is changed by linear
/// interpolation, continuing smoothly from one block to the next.
///
/// For a player whose output keeps one format when the stream's format changes (a WAV file
/// holds one): not a studio resampler, but the audio is heard as it is, neither silence nor
/// noise. Nothing is allocated per block once the output buffer has grown to the block size.
final class PCMConverter {
    /// What goes in and what comes out.
    let input: PCMFormat
    let output: PCMFormat
    private let buffer: PCMBuffer
    /// The last input frame of the previous block, mapped to the output's channels.
    private let previous: UnsafeMutableBufferPointer<Float>
    /// Output frames made, and input frames taken before the current block: output frame `j`
    /// is at input position `j * input rate / output rate`.
    private var framesMade: Int64 = 0
    private var framesTaken: Int64 = 0

    /// A converter from `input` to `output` (of the same sample type).
    init(from input: PCMFormat, to output: PCMFormat) {
        precondition(input.sampleType == output.sampleType, "PCMConverter converts rates and channels, not sample types")
        self.input = input
        self.output = output
        buffer = PCMBuffer(format: output)
        previous = .allocate(capacity: max(output.channels, 1))
        previous.initialize(repeating: 0)
    }

    deinit { previous.deallocate() }

    /// The frames of `block` (in the input format) converted; valid until the next call.
    func convert(_ block: PCMBuffer) -> PCMBuffer {
        buffer.removeAll()
        let count = block.frameCount
        guard count > 0, input.sampleRate > 0, output.sampleRate > 0 else { return buffer }
        let inRate = Int64(input.sampleRate), outRate = Int64(output.sampleRate)
        // The output frames whose input position is before this block's last frame: each lies
        // between two input frames at hand (frame -1 being the previous block's last). Frame j
        // is at (framesMade + j) * inRate / outRate; it qualifies while that is below `last`.
        let last = framesTaken + Int64(count) - 1
        let frames = Int(max(0, (last * outRate - framesMade * inRate + inRate - 1) / inRate))
        let room = buffer.reserve(frames * output.bytesPerFrame)
        let source = block.bytes
        for j in 0..<frames {
            let position = (framesMade + Int64(j)) * inRate
            let index = position / outRate - framesTaken
            let fraction = Float(position % outRate) / Float(outRate)
            for channel in 0..<output.channels {
                let a = index < 0 ? previous[channel] : sample(source, frame: Int(index), channel: channel)
                let b = sample(source, frame: Int(index) + 1, channel: channel)
                store(a + (b - a) * fraction, room, frame: j, channel: channel)
            }
        }
        buffer.commit(frames * output.bytesPerFrame)
        for channel in 0..<output.channels { previous[channel] = sample(source, frame: count - 1, channel: channel) }
        framesMade += Int64(frames)
        framesTaken += Int64(count)
        return buffer
    }

    /// Input frame `frame`'s value for output channel `channel`, from -1 to 1: the same channel,
    /// the mono one copied, or the average of the channels that fold into it.
    private func sample(_ source: UnsafeRawBufferPointer, frame: Int, channel: Int) -> Float {
        let base = frame * input.channels
        if input.channels == output.channels { return value(source, base + channel) }
        if input.channels == 1 { return value(source, base) }
        var sum: Float = 0
        var folded = 0
        var index = channel
        while index < input.channels {
            sum += value(source, base + index)
            folded += 1
            index += output.channels
        }
        return folded > 0 ? sum / Float(folded) : 0
    }

    /// Sample `index` of `source` as a float.
    @inline(__always)
    private func value(_ source: UnsafeRawBufferPointer, _ index: Int) -> Float {
        switch input.sampleType {
        case .signed16: Float(source.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
        case .float32: source.load(fromByteOffset: index * 4, as: Float.self)
        }
    }

    /// Stores `value` as output frame `frame`'s sample for `channel`.
    @inline(__always)
    private func store(_ value: Float, _ room: UnsafeMutableRawBufferPointer, frame: Int, channel: Int) {
        let index = frame * output.channels + channel
        switch output.sampleType {
        case .signed16:
            let scaled = (value * 32768).rounded()
            room.storeBytes(of: Int16(min(max(scaled, -32768), 32767)), toByteOffset: index * 2, as: Int16.self)
        case .float32:
            room.storeBytes(of: value, toByteOffset: index * 4, as: Float.self)
        }
    }
}
