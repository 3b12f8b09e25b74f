/// The WAV stage of `AudioStreamParser`: RIFF (little-endian) and RIFX (big-endian) chunks, the
/// `fmt ` chunk (PCM integer 8/16/24/32-bit, float 32/64-bit, plain or WAVE_FORMAT_EXTENSIBLE),
/// and the `data` chunk cut into packets of `framesPerPacket` frames. Chunks are padded to even
/// sizes; unknown chunks are skipped.
struct WAVParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case fileHeader
        case chunkHeader
        /// Inside `data`: `remaining` bytes (`Int64.max` when the size is left open), then `pad`.
        case data(remaining: Int64, pad: Int)
    }

    /// Frames in each packet (the last may hold fewer): 1024, fewer for frames so wide that a
    /// packet would pass `maximumPacketSize`.
    private var framesPerPacket = 1024
    /// The most bytes one packet holds, so the parser never holds more than that (bytes).
    private static let maximumPacketSize = 64 << 10
    /// The largest `fmt ` chunk read (bytes).
    private static let maximumFormatSize = 4096

    private var phase = Phase.fileHeader
    private var isBigEndian = false
    private var layout: AudioFormat.PCMLayout?
    /// Where the `data` chunk's contents start and end (end `nil` when open).
    private var dataRange: (start: Int64, end: Int64?)?

    /// Handles the bytes at the window's front, at stream `offset`.
    mutating func step(
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
            dataRange = (offset + 8, isOpen ? nil : offset + 8 + size)
            if !isOpen {
                let frames = size / Int64(layout.bytesPerFrame)
                state.headerFrameCount = frames
                state.headerByteCount = size
                state.headerPacketCount = (frames + Int64(framesPerPacket) - 1) / Int64(framesPerPacket)
                state.changed = true
            }
            phase = .data(remaining: isOpen ? .max : size, pad: pad)
            return .skip(8)
        case .data(let remaining, let pad):
            guard let layout, remaining > 0 else {
                phase = .chunkHeader
                return .skip(Int64(pad))
            }
            let frameBytes = layout.bytesPerFrame
            let wanted = Int(min(remaining, Int64(framesPerPacket * frameBytes)))
            if window.count < wanted, !isFinal { return .need(wanted) }
            let available = min(wanted, window.count)
            let usable = available - available % frameBytes
            guard usable > 0 else {
                // A trailing partial frame.
                phase = .data(remaining: remaining - Int64(available), pad: pad)
                return .skip(Int64(available))
            }
            phase = .data(remaining: remaining - Int64(usable), pad: pad)
            return .packet(size: usable, frames: usable / frameBytes)
        }
    }

    /// After a discontinuity to `offset`: inside the data, the next packet starts at the next
    /// frame boundary (the bytes to skip to reach it are returned); elsewhere, parsing starts
    /// over from the chunk structure if `offset` is 0, and otherwise nothing more is emitted.
    mutating func resynchronise(at offset: Int64) -> Int64 {
        guard let range = dataRange, let layout, offset >= range.start, offset < (range.end ?? .max) else {
            phase = offset == 0 ? .fileHeader : .data(remaining: 0, pad: 0)
            return 0
        }
        let misalignment = (offset - range.start) % Int64(layout.bytesPerFrame)
        let skip = misalignment == 0 ? 0 : Int64(layout.bytesPerFrame) - misalignment
        let remaining = range.end.map { $0 - offset - skip } ?? .max
        phase = .data(remaining: max(remaining, 0), pad: Int(((range.end ?? 0) - range.start) & 1))
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
        guard channels > 0, sampleRate > 0, validBits.contains(bits), blockAlign == channels * bits / 8 else {
            throw AudioParserError(
                code: .unsupportedFormat,
                message:
                    "WAV with \(channels) channels, \(sampleRate) Hz, \(bits) bits, \(blockAlign)-byte frames", offset: offset)
        }
        let layout = AudioFormat.PCMLayout(
            bitsPerSample: bits, bytesPerFrame: blockAlign, isFloat: isFloat,
            isBigEndian: isBigEndian)
        self.layout = layout
        framesPerPacket = max(1, min(1024, Self.maximumPacketSize / blockAlign))
        let kind = isFloat ? "float" : bits == 8 ? "unsigned" : "signed"
        let description = "PCM \(bits)-bit \(kind) \(isBigEndian ? "big" : "little")-endian"
        state.setFormat(
            AudioFormat(
                codec: .pcm, codecDescription: description, sampleRate: sampleRate,
                channels: channels, framesPerPacket: framesPerPacket, pcm: layout))
        state.pcmBitRate = Double(sampleRate * blockAlign * 8)
        state.seekTable.pcmBytesPerFrame = blockAlign
        state.set(\.isSeekableByTime, true)
    }
}
