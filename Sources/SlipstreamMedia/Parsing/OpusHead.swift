/// The identification header of an Ogg Opus stream (RFC 7845, section 5.1): channels, the
/// pre-skip, the input's original rate, the output gain and the channel mapping; and the
/// duration of an Opus packet from its TOC byte (RFC 6716, section 3.1). Opus always decodes
/// at 48 kHz here, the rate its granule positions count in.
package struct OpusHead: Hashable, Sendable {
    /// The rate of Opus's granule positions and of its decoded output (Hz).
    package static let sampleRate = 48_000

    /// Output channels.
    package let channels: Int
    /// Frames (at 48 kHz) to drop from the start of the decoded output.
    package let preSkip: Int
    /// The input's rate before encoding (Hz; 0 when not stated): only informative.
    package let inputSampleRate: Int
    /// The gain to apply to the output, in Q7.8 dB.
    package let outputGain: Int
    /// The channel mapping family (0: mono or stereo; 1: Vorbis order, up to 8; 255: none).
    package let mappingFamily: Int

    /// Reads an `OpusHead` packet; `nil` when it is not a valid one.
    package init?(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= 19, packet.starts(with: "OpusHead"), packet[8] >> 4 == 0 else { return nil }
        channels = Int(packet[9])
        preSkip = Int(packet.littleEndian(at: 10, count: 2))
        inputSampleRate = Int(packet.littleEndian(at: 12, count: 4))
        outputGain = Int(Int16(bitPattern: UInt16(packet.littleEndian(at: 16, count: 2))))
        mappingFamily = Int(packet[18])
        guard channels > 0 else { return nil }
        if mappingFamily == 0 {
            guard channels <= 2 else { return nil }
        } else {
            // Stream count, coupled count and one mapping byte per channel.
            guard packet.count >= 21 + channels, packet[19] > 0, packet[20] <= packet[19] else { return nil }
        }
    }

    /// The frames (at 48 kHz) an Opus packet decodes to, from its TOC byte and frame count; 0
    /// for an empty or malformed packet, which libopus refuses.
    package static func frameCount(of packet: UnsafeRawBufferPointer) -> Int {
        guard let toc = packet.first else { return 0 }
        let config = Int(toc >> 3)
        let frameSize: Int
        switch config {
        case 0..<12: frameSize = [480, 960, 1920, 2880][config & 3]
        case 12..<16: frameSize = [480, 960][config & 1]
        default: frameSize = [120, 240, 480, 960][config & 3]
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return 0 }
            frames = Int(packet[1] & 0x3F)
        }
        let total = frames * frameSize
        return total <= 5760 ? total : 0
    }
}
