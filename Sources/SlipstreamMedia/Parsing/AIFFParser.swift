/// The AIFF stage of `AudioStreamParser`: a `FORM` of `AIFF` or `AIFF-C` (`AIFC`) chunks, big-endian;
/// `COMM` for the format (its 80-bit sample rate; for AIFF-C the compression type: `NONE` and
/// `twos` big-endian integers, `sowt` little-endian ones, `fl32`/`fl64` big-endian floats;
/// integers of 8 to 32 bits, all signed), and
/// `SSND` cut into packets (`PCMDataChunk`). Chunks are padded to even sizes; the rest is skipped.
package struct AIFFParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case fileHeader
        case chunkHeader
        /// Inside `SSND`'s audio, then `after` bytes (the rest of the chunk and its pad).
        case data(PCMDataChunk, after: Int64)
        /// Past the audio (after a discontinuity outside it): nothing more is emitted.
        case ended
    }

    /// The largest `COMM` chunk read (bytes).
    private static let maximumCommonSize = 4096

    private var phase = Phase.fileHeader
    private var isAIFC = false
    private var layout: AudioFormat.PCMLayout?
    /// `SSND`'s audio, once found.
    private var data: PCMDataChunk?

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        switch phase {
        case .fileHeader:
            guard window.count >= 12 else { return isFinal ? .skip(Int64(window.count)) : .need(12) }
            isAIFC = window.starts(with: "AIFC", at: 8)
            phase = .chunkHeader
            return .skip(12)
        case .chunkHeader:
            guard window.count >= 8 else { return isFinal ? .skip(Int64(window.count)) : .need(8) }
            let size = Int64(window.bigEndian(at: 4, count: 4))
            let padded = 8 + size + (size & 1)
            if window.starts(with: "COMM") {
                guard size >= (isAIFC ? 22 : 18), size <= Self.maximumCommonSize else {
                    throw AudioParserError(code: .malformed, message: "AIFF COMM chunk of \(size) bytes", offset: offset)
                }
                let total = 8 + Int(size)
                guard window.count >= total else { return isFinal ? .skip(Int64(window.count)) : .need(total) }
                try readCommon(UnsafeRawBufferPointer(rebasing: window[8..<total]), offset: offset, state: &state)
                return .skip(padded)
            }
            guard window.starts(with: "SSND") else { return .skip(padded) }
            guard let layout else {
                throw AudioParserError(code: .malformed, message: "AIFF SSND chunk before the COMM chunk", offset: offset)
            }
            guard size >= 8, window.count >= 16 || isFinal else { return size < 8 ? .skip(padded) : .need(16) }
            guard window.count >= 16 else { return .skip(Int64(window.count)) }
            // The audio starts `dataOffset` bytes after the chunk's 8-byte header of its own.
            let dataOffset = min(Int64(window.bigEndian(at: 8, count: 4)), size - 8)
            let audio = size - 8 - dataOffset
            let chunk = PCMDataChunk(layout: layout, start: offset + 16 + dataOffset, size: audio)
            chunk.noteStart(&state)
            data = chunk
            phase = .data(chunk, after: size & 1)
            return .skip(16 + dataOffset)
        case .data(var chunk, let after):
            guard let step = chunk.step(window, isFinal: isFinal) else {
                phase = .chunkHeader
                return .skip(after)
            }
            phase = .data(chunk, after: after)
            return step
        case .ended:
            return .skip(Int64(window.count))
        }
    }

    /// In the audio, counts the rest of it without its bytes and moves past it (see
    /// `PCMDataChunk.countRest`); `nil` elsewhere.
    package mutating func countRestOfAudio(from offset: Int64, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        guard case .data(var chunk, let after) = phase, let count = chunk.countRest(from: offset, sourceEnd: sourceEnd) else { return nil }
        phase = .data(chunk, after: after)
        return count
    }

    /// After a discontinuity to `offset`: inside the audio, the next packet starts at the next
    /// frame boundary (the bytes to skip to reach it are returned); elsewhere, parsing starts
    /// over if `offset` is 0, and otherwise nothing more is emitted.
    package mutating func resynchronise(at offset: Int64) -> Int64 {
        guard let (chunk, skip) = data?.resynchronised(at: offset) else {
            phase = offset == 0 ? .fileHeader : .ended
            return 0
        }
        phase = .data(chunk, after: Int64((chunk.end.map { $0 - chunk.start } ?? 0) & 1))
        return skip
    }

    /// Reads a `COMM` chunk body: channels, frames, sample size, the 80-bit sample rate, and
    /// for AIFF-C the compression type.
    private mutating func readCommon(
        _ body: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) {
        let channels = Int(body.bigEndian(at: 0, count: 2)), bits = Int(body.bigEndian(at: 6, count: 2))
        let rate = Self.extended(UnsafeRawBufferPointer(rebasing: body[8..<18]))
        var compression = "NONE"
        if isAIFC { compression = String(decoding: body[18..<22], as: UTF8.self) }
        let isFloat = ["fl32", "FL32", "fl64", "FL64"].contains(compression)
        let isLittleEndian = compression == "sowt"
        guard ["NONE", "twos", "sowt"].contains(compression) || isFloat else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "AIFF-C compressed as '\(compression)' (only PCM is supported)", offset: offset)
        }
        // Samples narrower than their bytes are left-justified: 20 bits play as 24.
        let container = isFloat ? (compression.hasSuffix("32") ? 32 : 64) : (bits + 7) / 8 * 8
        guard (1...64).contains(channels), let rate, rate >= 1, rate < 10_000_000,
            (isFloat ? [32, 64] : [8, 16, 24, 32]).contains(container)
        else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "AIFF with \(channels) channels, \(rate ?? 0) Hz, \(bits) bits", offset: offset)
        }
        let sampleRate = Int(rate.rounded())
        let layout = AudioFormat.PCMLayout(
            bitsPerSample: container, bytesPerFrame: channels * container / 8, isFloat: isFloat, isBigEndian: !isLittleEndian)
        self.layout = layout
        let name = isAIFC ? "AIFF-C" : "AIFF"
        let description = "\(name) PCM \(container)-bit \(isFloat ? "float" : "signed") \(isLittleEndian ? "little" : "big")-endian"
        PCMDataChunk.announce(layout, sampleRate: sampleRate, channels: channels, description: description, state: &state)
    }

    /// An 80-bit IEEE 754 extended-precision number (big-endian: sign and 15-bit exponent, then
    /// a 64-bit mantissa with its integer bit); `nil` for a negative, infinite or NaN one.
    package static func extended(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let signAndExponent = Int(bytes.bigEndian(at: 0, count: 2))
        let mantissa = bytes.bigEndian(at: 2, count: 8)
        guard signAndExponent & 0x8000 == 0, signAndExponent != 0x7FFF else { return nil }
        guard mantissa != 0 else { return 0 }
        return Double(sign: .plus, exponent: signAndExponent - 16383 - 63, significand: Double(mantissa))
    }
}
