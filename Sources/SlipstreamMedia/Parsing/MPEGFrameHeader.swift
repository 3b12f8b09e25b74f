/// The 4-byte header of an MPEG audio frame (ISO 11172-3 / 13818-3, and the MPEG-2.5 extension):
/// parsed, checked for reserved values, and sized.
package struct MPEGFrameHeader: Hashable, Sendable {
    package enum Version: Hashable, Sendable {
        case mpeg1, mpeg2, mpeg25
    }

    package var version: Version
    /// 1, 2 or 3.
    package var layer: Int
    /// A 16-bit CRC follows the header.
    package var hasCRC: Bool
    /// Bit rate in kbit/s; 0 for free format.
    package var bitRate: Int
    /// Sample rate in Hz.
    package var sampleRate: Int
    /// The frame carries one extra slot (a byte; 4 bytes in Layer I).
    package var isPadded: Bool
    /// Channel mode: 0 stereo, 1 joint stereo, 2 dual channel, 3 mono.
    package var channelMode: Int

    /// Bit rates in kbit/s by bitrate index (1...14), per version family and layer.
    private static let bitRates: [[Int]] = [
        [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // MPEG-1 Layer I
        [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // MPEG-1 Layer II
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // MPEG-1 Layer III
        [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],  // MPEG-2/2.5 Layer I
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],  // MPEG-2/2.5 Layers II, III
    ]
    private static let sampleRates: [Int] = [44100, 48000, 32000]

    /// Parses the header in the first 4 bytes of `bytes` at `index`; `nil` unless there is a
    /// sync word and no field holds a reserved value (version 01, layer 00, bit rate index 15,
    /// sample rate index 3, emphasis 10).
    package init?(_ bytes: UnsafeRawBufferPointer, at index: Int = 0) {
        guard bytes.count - index >= 4 else { return nil }
        let b1 = bytes[index + 1], b2 = bytes[index + 2], b3 = bytes[index + 3]
        guard bytes[index] == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 3 {
        case 3: version = .mpeg1
        case 2: version = .mpeg2
        case 0: version = .mpeg25
        default: return nil
        }
        let layerBits = Int((b1 >> 1) & 3)
        let bitRateIndex = Int(b2 >> 4)
        let rateIndex = Int((b2 >> 2) & 3)
        guard layerBits != 0, bitRateIndex != 15, rateIndex != 3, b3 & 3 != 2 else { return nil }
        layer = 4 - layerBits
        hasCRC = b1 & 1 == 0
        let table = version == .mpeg1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitRate = bitRateIndex == 0 ? 0 : Self.bitRates[table][bitRateIndex - 1]
        let divisor = version == .mpeg1 ? 1 : version == .mpeg2 ? 2 : 4
        sampleRate = Self.sampleRates[rateIndex] / divisor
        isPadded = b2 & 2 != 0
        channelMode = Int(b3 >> 6)
    }

    /// Number of channels: 1 for mono, 2 otherwise.
    package var channels: Int { channelMode == 3 ? 1 : 2 }

    /// Frames (samples per channel) in one MPEG frame.
    package var samplesPerFrame: Int {
        switch layer {
        case 1: 384
        case 2: 1152
        default: version == .mpeg1 ? 1152 : 576
        }
    }

    /// Bytes of the frame, header included, or `nil` for free format (bit rate index 0).
    package var frameSize: Int? {
        guard bitRate > 0 else { return nil }
        return Self.frameSize(
            bitRate: bitRate * 1000, layer: layer, version: version,
            sampleRate: sampleRate, padded: isPadded)
    }

    /// Bytes of a frame at `bitRate` bit/s.
    package static func frameSize(bitRate: Int, layer: Int, version: Version, sampleRate: Int, padded: Bool) -> Int {
        if layer == 1 { return (12 * bitRate / sampleRate + (padded ? 1 : 0)) * 4 }
        let coefficient = layer == 3 && version != .mpeg1 ? 72 : 144
        return coefficient * bitRate / sampleRate + (padded ? 1 : 0)
    }

    /// Whether `other` can be the next frame of the same stream: same version, layer, sample
    /// rate, channel count and free-format-ness. (Bit rate, padding and CRC may change.)
    package func agrees(with other: MPEGFrameHeader) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
            && channels == other.channels && (bitRate == 0) == (other.bitRate == 0)
    }

    /// Bytes between the header (and CRC) and the start of the Layer III side information's
    /// end: where a Xing/Info header starts, counted from the frame start.
    package var xingOffset: Int {
        let sideInfo = version == .mpeg1 ? (channels == 1 ? 17 : 32) : (channels == 1 ? 9 : 17)
        return 4 + sideInfo + (hasCRC ? 2 : 0)
    }

    /// The codec this layer belongs to.
    package var codec: AudioFormat.Codec { layer == 1 ? .mp1 : layer == 2 ? .mp2 : .mp3 }

    /// E.g. "MPEG-2.5 Layer III".
    package var codecDescription: String {
        let name = version == .mpeg1 ? "MPEG-1" : version == .mpeg2 ? "MPEG-2" : "MPEG-2.5"
        return "\(name) Layer \(["I", "II", "III"][layer - 1])"
    }
}
