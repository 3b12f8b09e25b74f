/// Converts the uncompressed samples of a WAV (or RIFX), AIFF or CAF stream to native 16-bit
/// integers or 32-bit floats: 8-bit unsigned or signed, 16/24/32-bit signed and 32/64-bit float,
/// either byte order.
///
/// To 16 bits, wider integers keep their top 16 bits and floats are scaled by 32768, rounded to
/// nearest and clipped, as ffmpeg converts them (16-bit sources pass unchanged); to floats,
/// integers are scaled by 2^(bits-1). No state: `primingPacketCount` and `decoderDelay` are 0.
package final class PCMPassthroughDecoder: SelectableAudioDecoder {
    package let outputFormat: PCMFormat
    package let primingPacketCount = 0
    package let decoderDelay = 0

    private let layout: AudioFormat.PCMLayout
    private let sampleBytes: Int

    /// Creates a converter for a `.pcm` stream of `format` (which must carry its `pcm` layout).
    package init(format: AudioFormat, sampleType: PCMFormat.SampleType = .signed16) throws(AudioDecoderError) {
        guard format.codec == .pcm, let layout = format.pcm, format.channels > 0,
            layout.bytesPerFrame == format.channels * layout.bitsPerSample / 8,
            layout.isFloat ? [32, 64].contains(layout.bitsPerSample) : [8, 16, 24, 32].contains(layout.bitsPerSample)
        else {
            throw AudioDecoderError(
                .unsupportedFormat, "PCMPassthroughDecoder: \(format.codecDescription) is not a PCM layout it converts",
                codec: format.codecDescription)
        }
        self.layout = layout
        sampleBytes = layout.bitsPerSample / 8
        outputFormat = PCMFormat(sampleRate: format.sampleRate, channels: format.channels, sampleType: sampleType)
    }

    /// Always `decoded`: every byte is a sample.
    @discardableResult
    package func decode(_ bytes: UnsafeRawBufferPointer, packet: AudioPacket, into output: PCMBuffer) throws(AudioDecoderError)
        -> DecodeOutcome
    {
        let samples = packet.frameCount * outputFormat.channels
        let room = output.reserve(samples * outputFormat.bytesPerSample)
        let available = min(samples, bytes.count / sampleBytes)
        if let source = bytes.baseAddress, let target = room.baseAddress {
            if outputFormat.sampleType == .signed16 {
                convert(source, available, into: target.assumingMemoryBound(to: Int16.self))
            } else {
                convert(source, available, into: target.assumingMemoryBound(to: Float.self))
            }
        }
        if available < samples {
            (room.baseAddress! + available * outputFormat.bytesPerSample)
                .initializeMemory(as: UInt8.self, repeating: 0, count: (samples - available) * outputFormat.bytesPerSample)
        }
        output.commit(samples * outputFormat.bytesPerSample)
        return .decoded
    }

    package func reset() {}

    /// Uncompressed PCM (WAV, AIFF, CAF).
    package static func decodes(_ format: AudioFormat) -> Bool { format.codec == .pcm }

    /// The `i`th sample of `source` as a 32-bit integer with the sample in its top bits
    /// (unsigned samples made signed), for integer layouts.
    @inline(__always)
    private func integer(_ source: UnsafeRawPointer, _ i: Int) -> Int32 {
        let p = source + i * sampleBytes
        switch sampleBytes {
        case 1:
            let raw = p.load(as: UInt8.self)
            return Int32(layout.isUnsigned ? Int8(bitPattern: raw ^ 0x80) : Int8(bitPattern: raw)) << 24
        case 2:
            let raw = p.loadUnaligned(as: UInt16.self)
            return Int32(Int16(bitPattern: layout.isBigEndian ? raw.bigEndian : raw.littleEndian)) << 16
        case 3:
            let b0 = UInt32(p.load(fromByteOffset: 0, as: UInt8.self))
            let b1 = UInt32(p.load(fromByteOffset: 1, as: UInt8.self))
            let b2 = UInt32(p.load(fromByteOffset: 2, as: UInt8.self))
            let word = layout.isBigEndian ? b0 << 24 | b1 << 16 | b2 << 8 : b2 << 24 | b1 << 16 | b0 << 8
            return Int32(bitPattern: word)
        default:
            let raw = p.loadUnaligned(as: UInt32.self)
            return Int32(bitPattern: layout.isBigEndian ? raw.bigEndian : raw.littleEndian)
        }
    }

    /// The `i`th sample of `source` as a double, for float layouts.
    @inline(__always)
    private func real(_ source: UnsafeRawPointer, _ i: Int) -> Double {
        if sampleBytes == 4 {
            let raw = source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
            return Double(Float(bitPattern: layout.isBigEndian ? raw.bigEndian : raw.littleEndian))
        }
        let raw = source.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
        return Double(bitPattern: layout.isBigEndian ? raw.bigEndian : raw.littleEndian)
    }

    private func convert(_ source: UnsafeRawPointer, _ count: Int, into target: UnsafeMutablePointer<Int16>) {
        if layout.isFloat {
            for i in 0..<count {
                let scaled = (real(source, i) * 32768).rounded(.toNearestOrEven)
                target[i] = Int16(min(max(scaled, -32768), 32767))
            }
        } else if sampleBytes == 2 {
            // 16 bits: a copy, or a byte swap (big-endian AIFF and CAF) the compiler vectorizes.
            if layout.isBigEndian == (1.bigEndian == 1) {
                UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: count * 2)
            } else {
                for i in 0..<count {
                    target[i] = Int16(bitPattern: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self).byteSwapped)
                }
            }
        } else {
            for i in 0..<count { target[i] = Int16(truncatingIfNeeded: integer(source, i) >> 16) }
        }
    }

    private func convert(_ source: UnsafeRawPointer, _ count: Int, into target: UnsafeMutablePointer<Float>) {
        if layout.isFloat {
            for i in 0..<count { target[i] = Float(real(source, i)) }
        } else {
            for i in 0..<count { target[i] = Float(integer(source, i)) / 2_147_483_648 }
        }
    }
}
