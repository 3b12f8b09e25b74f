/// The header of a RIFF WAVE file for one `PCMFormat`, and where its size fields are.
///
/// 16-bit mono or stereo is plain `WAVE_FORMAT_PCM` (the 44-byte header `mpg123 -w` writes);
/// float mono or stereo is `WAVE_FORMAT_IEEE_FLOAT`; more channels use `WAVE_FORMAT_EXTENSIBLE`
/// (required past two channels) with no speaker mask, since `PCMFormat` carries no layout. Float
/// files carry the `fact` chunk (frame count) that non-PCM formats require. Sizes saturate at
/// 4 GiB − 1, as the 32-bit fields allow.
package struct WAVHeader {
    /// The header bytes for a file holding `dataBytes` bytes of samples.
    package private(set) var bytes: [UInt8] = []
    /// Offset of the RIFF chunk's size (file length − 8).
    package private(set) var riffSizeOffset = 4
    /// Offset of the `fact` chunk's frame count, if there is one.
    package private(set) var factOffset: Int?
    /// Offset of the `data` chunk's size.
    package private(set) var dataSizeOffset = 0

    /// The header for `format`, with every size 0.
    package init(_ format: PCMFormat) {
        let isFloat = format.sampleType == .float32
        let extensible = format.channels > 2
        let tag: UInt16 = extensible ? 0xFFFE : isFloat ? 3 : 1
        let bits = UInt32(format.bytesPerSample * 8)
        append("RIFF")
        append(0)
        append("WAVE")
        append("fmt ")
        append(UInt32(extensible ? 40 : isFloat ? 18 : 16))
        append16(tag)
        // Held to the fields' widths: a format no WAV can state gives a wrong header, never a trap.
        append16(UInt16(clamping: format.channels))
        append(UInt32(clamping: format.sampleRate))
        append(UInt32(clamping: format.sampleRate * format.bytesPerFrame))
        append16(UInt16(clamping: format.bytesPerFrame))
        append16(UInt16(bits))
        if extensible {
            append16(22)
            append16(UInt16(bits))
            append(0)
            // The SubFormat GUID {0000000X-0000-0010-8000-00AA00389B71}, X the format code.
            append16(isFloat ? 3 : 1)
            bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        } else if isFloat {
            append16(0)
        }
        if isFloat {
            append("fact")
            append(4)
            factOffset = bytes.count
            append(0)
        }
        append("data")
        dataSizeOffset = bytes.count
        append(0)
    }

    /// The three size fields' values for `dataBytes` bytes of samples in `format`.
    /// Sets every size field to its maximum, the usual mark of a WAV stream of unknown length.
    package mutating func markUnknownLength() {
        for offset in [riffSizeOffset, dataSizeOffset] + (factOffset.map { [$0] } ?? []) {
            bytes.replaceSubrange(offset..<offset + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        }
    }

    package func sizes(dataBytes: Int64, format: PCMFormat) -> (riff: UInt32, frames: UInt32, data: UInt32) {
        let clamp = { (value: Int64) in UInt32(min(value, Int64(UInt32.max))) }
        return (
            clamp(Int64(bytes.count) - 8 + dataBytes), clamp(dataBytes / Int64(format.bytesPerFrame)),
            clamp(dataBytes)
        )
    }

    private mutating func append(_ text: String) { bytes += Array(text.utf8) }

    private mutating func append(_ value: UInt32) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    private mutating func append16(_ value: UInt16) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
}
