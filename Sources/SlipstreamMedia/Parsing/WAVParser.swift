/// The WAV stage of `AudioStreamParser`: RIFF (little-endian) and RIFX (big-endian) chunks, the
/// `fmt ` chunk (PCM integer 8/16/24/32-bit, float 32/64-bit, plain or WAVE_FORMAT_EXTENSIBLE),
/// and the `data` chunk cut into packets (`PCMDataChunk`). Chunks are padded to even
/// sizes; unknown chunks are skipped.
package struct WAVParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case fileHeader
        case chunkHeader
        /// Inside `data`, then `pad` bytes.
        case data(PCMDataChunk, pad: Int)
        /// Past the audio (after a discontinuity outside it): nothing more is emitted.
        case ended
    }

    /// The largest `fmt ` chunk read (bytes).
    private static let maximumFormatSize = 4096

    private var phase = Phase.fileHeader
    private var isBigEndian = false
    private var layout: AudioFormat.PCMLayout?
    /// The `data` chunk, once found.
    private var data: PCMDataChunk?

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        switch phase {
        case .fileHeader:
            guard window.count >= 12 else { return isFinal ? .skip(Int64(window.count)) : .need(12) }
            isBigEndian = window.starts(with: "RIFX")
            phase = .chunkHeader
            return .skip(12)
        case .chunkHeader:
            guard window.count >= 8 else { return isFinal ? .skip(Int64(window.count)) : .need(8) }
            let size = Int64(window.integer(at: 4, count: 4, bigEndian: isBigEndian))
            let pad = Int(size & 1)
            if window.starts(with: "fmt ") {
                guard size >= 16, size <= Self.maximumFormatSize else {
                    throw AudioParserError(code: .malformed, message: "WAV fmt chunk of \(size) bytes", offset: offset)
                }
                let total = 8 + Int(size)
                guard window.count >= total else { return isFinal ? .skip(Int64(window.count)) : .need(total) }
                try readFormat(UnsafeRawBufferPointer(rebasing: window[8..<total]), offset: offset, state: &state)
                return .skip(Int64(total + pad))
            }
            guard window.starts(with: "data") else { return .skip(8 + size + Int64(pad)) }
            guard let layout else {
                throw AudioParserError(code: .malformed, message: "WAV data chunk before any fmt chunk", offset: offset)
            }
            let isOpen = size == 0 || size == 0xFFFF_FFFF
            let chunk = PCMDataChunk(layout: layout, start: offset + 8, size: isOpen ? nil : size)
            chunk.noteStart(&state)
            data = chunk
            phase = .data(chunk, pad: pad)
            return .skip(8)
        case .data(var chunk, let pad):
            guard let step = chunk.step(window, isFinal: isFinal) else {
                phase = .chunkHeader
                return .skip(Int64(pad))
            }
            phase = .data(chunk, pad: pad)
            return step
        case .ended:
            return .skip(Int64(window.count))
        }
    }

    /// In the audio, counts the rest of it without its bytes and moves past it (see
    /// `PCMDataChunk.countRest`); `nil` elsewhere.
    package mutating func countRestOfAudio(from offset: Int64, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        guard case .data(var chunk, let pad) = phase, let count = chunk.countRest(from: offset, sourceEnd: sourceEnd) else { return nil }
        phase = .data(chunk, pad: pad)
        return count
    }

    /// After a discontinuity to `offset`: inside the data, the next packet starts at the next
    /// frame boundary (the bytes to skip to reach it are returned); elsewhere, parsing starts
    /// over from the chunk structure if `offset` is 0, and otherwise nothing more is emitted.
    package mutating func resynchronise(at offset: Int64) -> Int64 {
        guard let (chunk, skip) = data?.resynchronised(at: offset) else {
            phase = offset == 0 ? .fileHeader : .ended
            return 0
        }
        phase = .data(chunk, pad: Int((chunk.end.map { $0 - chunk.start } ?? 0) & 1))
        return skip
    }

    /// Reads a `fmt ` chunk body.
    private mutating func readFormat(
        _ body: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) {
        let bigEndian = isBigEndian
        let field = { (at: Int, count: Int) in Int(body.integer(at: at, count: count, bigEndian: bigEndian)) }
        var tag = field(0, 2)
        let channels = field(2, 2), sampleRate = field(4, 4), blockAlign = field(12, 2), bits = field(14, 2)
        // WAVE_FORMAT_EXTENSIBLE: the real format code starts the SubFormat GUID.
        if tag == 0xFFFE, body.count >= 40 { tag = field(24, 2) }
        let isFloat = tag == 3
        guard tag == 1 || isFloat else {
            let hex = String(tag, radix: 16, uppercase: true)
            throw AudioParserError(
                code: .unsupportedFormat,
                message:
                    "WAV with format tag 0x\(hex) (only PCM and IEEE float are supported)", offset: offset)
        }
        let validBits = isFloat ? [32, 64] : [8, 16, 24, 32]
        // Rates and channel counts as AIFF and CAF take them: an output's byte rate then fits in 32 bits.
        guard (1...64).contains(channels), (1..<10_000_000).contains(sampleRate), validBits.contains(bits),
            blockAlign == channels * bits / 8
        else {
            throw AudioParserError(
                code: .unsupportedFormat,
                message:
                    "WAV with \(channels) channels, \(sampleRate) Hz, \(bits) bits, \(blockAlign)-byte frames", offset: offset)
        }
        let layout = AudioFormat.PCMLayout(
            bitsPerSample: bits, bytesPerFrame: blockAlign, isFloat: isFloat, isBigEndian: isBigEndian, isUnsigned: bits == 8)
        self.layout = layout
        let kind = isFloat ? "float" : bits == 8 ? "unsigned" : "signed"
        let description = "PCM \(bits)-bit \(kind) \(isBigEndian ? "big" : "little")-endian"
        PCMDataChunk.announce(layout, sampleRate: sampleRate, channels: channels, description: description, state: &state)
    }
}
