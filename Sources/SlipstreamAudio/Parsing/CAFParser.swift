/// The CAF stage of `AudioStreamParser`: Apple's Core Audio Format, big-endian chunks with 64-bit
/// sizes after `caff`; `desc` for the format (linear PCM, `lpcm`: signed integers of 8, 16, 24 or
/// 32 bits or floats of 32 or 64, either byte order), and `data` (after its 4-byte edit count) cut into
/// packets (`PCMDataChunk`); a `data` chunk of size -1 runs to the end. The rest is skipped.
struct CAFParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case fileHeader
        case chunkHeader
        case data(PCMDataChunk)
        /// Past the audio (after a discontinuity outside it): nothing more is emitted.
        case ended
    }

    private var phase = Phase.fileHeader
    private var layout: AudioFormat.PCMLayout?
    /// The `data` chunk's audio, once found.
    private var data: PCMDataChunk?

    /// Handles the bytes at the window's front, at stream `offset`.
    mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        switch phase {
        case .fileHeader:
            guard window.count >= 8 else { return isFinal ? .skip(Int64(window.count)) : .need(8) }
            phase = .chunkHeader
            return .skip(8)
        case .chunkHeader:
            guard window.count >= 12 else { return isFinal ? .skip(Int64(window.count)) : .need(12) }
            let size = Int64(bitPattern: window.bigEndian(at: 4, count: 8))
            if window.starts(with: "desc") {
                guard size == 32 else {
                    throw AudioParserError(code: .malformed, message: "CAF desc chunk of \(size) bytes", offset: offset)
                }
                guard window.count >= 44 else { return isFinal ? .skip(Int64(window.count)) : .need(44) }
                try readDescription(UnsafeRawBufferPointer(rebasing: window[12..<44]), offset: offset, state: &state)
                return .skip(44)
            }
            guard size >= 0 || window.starts(with: "data") else {
                throw AudioParserError(code: .malformed, message: "CAF chunk of \(size) bytes", offset: offset)
            }
            guard window.starts(with: "data") else { return .skip(12 + size) }
            guard let layout else {
                throw AudioParserError(code: .malformed, message: "CAF data chunk before the desc chunk", offset: offset)
            }
            guard size == -1 || size >= 4 else { return .skip(12 + size) }
            let chunk = PCMDataChunk(layout: layout, start: offset + 16, size: size == -1 ? nil : size - 4)
            chunk.noteStart(&state)
            data = chunk
            phase = .data(chunk)
            return .skip(16)
        case .data(var chunk):
            guard let step = chunk.step(window, isFinal: isFinal) else {
                phase = .chunkHeader
                return try self.step(window, offset: offset, isFinal: isFinal, state: &state)
            }
            phase = .data(chunk)
            return step
        case .ended:
            return .skip(Int64(window.count))
        }
    }

    /// In the audio, counts the rest of it without its bytes and moves past it (see
    /// `PCMDataChunk.countRest`); `nil` elsewhere.
    mutating func countRestOfAudio(from offset: Int64, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        guard case .data(var chunk) = phase, let count = chunk.countRest(from: offset, sourceEnd: sourceEnd) else { return nil }
        phase = .data(chunk)
        return count
    }

    /// After a discontinuity to `offset`: inside the audio, the next packet starts at the next
    /// frame boundary (the bytes to skip to reach it are returned); elsewhere, parsing starts
    /// over if `offset` is 0, and otherwise nothing more is emitted.
    mutating func resynchronise(at offset: Int64) -> Int64 {
        guard let (chunk, skip) = data?.resynchronised(at: offset) else {
            phase = offset == 0 ? .fileHeader : .ended
            return 0
        }
        phase = .data(chunk)
        return skip
    }

    /// Reads a `desc` chunk body: the sample rate (a 64-bit float), the format id and flags,
    /// bytes and frames per packet, channels and bits.
    private mutating func readDescription(
        _ body: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) {
        let rate = Double(bitPattern: body.bigEndian(at: 0, count: 8))
        let formatID = String(decoding: body[8..<12], as: UTF8.self)
        let flags = body.bigEndian(at: 12, count: 4)
        let bytesPerPacket = Int(body.bigEndian(at: 16, count: 4)), framesPerPacket = Int(body.bigEndian(at: 20, count: 4))
        let channels = Int(body.bigEndian(at: 24, count: 4)), bits = Int(body.bigEndian(at: 28, count: 4))
        guard formatID == "lpcm" else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "CAF with '\(formatID)' audio (only PCM is supported)", offset: offset)
        }
        let isFloat = flags & 1 != 0, isLittleEndian = flags & 2 != 0
        guard rate.isFinite, rate >= 1, rate < 10_000_000, (1...64).contains(channels), framesPerPacket == 1,
            (isFloat ? [32, 64] : [8, 16, 24, 32]).contains(bits), bytesPerPacket == channels * bits / 8
        else {
            throw AudioParserError(
                code: .unsupportedFormat,
                message: "CAF with \(channels) channels, \(rate) Hz, \(bits) bits, \(bytesPerPacket)-byte frames", offset: offset)
        }
        let layout = AudioFormat.PCMLayout(
            bitsPerSample: bits, bytesPerFrame: bytesPerPacket, isFloat: isFloat, isBigEndian: !isLittleEndian)
        self.layout = layout
        let description = "CAF PCM \(bits)-bit \(isFloat ? "float" : "signed") \(isLittleEndian ? "little" : "big")-endian"
        PCMDataChunk.announce(
            layout, sampleRate: Int(rate.rounded()), channels: channels, description: description, state: &state)
    }
}
