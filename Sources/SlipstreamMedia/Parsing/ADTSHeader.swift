/// The header of an ADTS frame (ISO 14496-3 1.A.2): AAC's self-framing transport.
package struct ADTSHeader: SyncFrameHeader {
    package static var headerLength: Int { 7 }

    /// ID bit: MPEG-2 AAC (otherwise MPEG-4).
    package var isMPEG2: Bool
    /// Audio object type minus one: 0 Main, 1 LC, 2 SSR, 3 LTP.
    package var profile: Int
    package var sampleRateIndex: Int
    package var sampleRate: Int
    /// Channel configuration: 1...6 channels as numbered, 7 for 7.1; 0 when a PCE says.
    package var channelConfiguration: Int
    /// A 16-bit CRC follows the fixed header (protection_absent = 0).
    package var hasCRC: Bool
    /// Bytes of the whole frame, header included.
    package var frameLength: Int
    /// Decoder buffer fullness in 32-bit words; 0x7FF means variable bit rate.
    package var bufferFullness: Int
    /// Raw data blocks in the frame (1...4), of 1024 frames each at the core rate.
    package var rawDataBlocks: Int

    package init?(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        guard bytes.count - index >= Self.headerLength, bytes[index] == 0xFF, bytes[index + 1] & 0xF6 == 0xF0 else {
            return nil
        }
        let b = { (i: Int) in Int(bytes[index + i]) }
        isMPEG2 = b(1) & 0x08 != 0
        hasCRC = b(1) & 1 == 0
        profile = b(2) >> 6
        sampleRateIndex = (b(2) >> 2) & 0x0F
        channelConfiguration = (b(2) & 1) << 2 | b(3) >> 6
        frameLength = (b(3) & 3) << 11 | b(4) << 3 | b(5) >> 5
        bufferFullness = (b(5) & 0x1F) << 6 | b(6) >> 2
        rawDataBlocks = b(6) & 3 + 1
        guard AudioSpecificConfig.rates.indices.contains(sampleRateIndex), frameLength > (hasCRC ? 9 : 7) else { return nil }
        sampleRate = AudioSpecificConfig.rates[sampleRateIndex]
    }

    package static func mayStart(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        bytes[index] == 0xFF && (index + 1 == bytes.count || bytes[index + 1] & 0xF6 == 0xF0)
    }

    package func agrees(with other: ADTSHeader) -> Bool {
        isMPEG2 == other.isMPEG2 && profile == other.profile && sampleRateIndex == other.sampleRateIndex
            && channelConfiguration == other.channelConfiguration
    }

    /// Number of channels (2 when the configuration is left to a PCE).
    package var channels: Int { [2, 1, 2, 3, 4, 5, 6, 8][channelConfiguration] }

    /// Whether the frame is decoded at twice its rate, and a mono core in stereo: ADTS cannot
    /// signal SBR (HE-AAC), whose core runs at half the output rate, nor parametric stereo (HE-AAC
    /// v2), which makes stereo of a mono core, so at a core rate of 24 kHz or less both are taken
    /// to be there, as libfaad2 and its `faad` do (and HE-AAC radio needs: at the core rate, all
    /// above a quarter of the output rate, 11 kHz of a 44.1 kHz station, is lost, and in mono the
    /// stereo of a v2 station). A stream without them loses nothing: it comes out upsampled, its
    /// mono in two equal channels.
    package var impliesSBR: Bool { sampleRate <= 24000 }

    /// Frames (samples per channel) the ADTS frame decodes to, at `outputRate`.
    package var frameCount: Int { 1024 * rawDataBlocks * (impliesSBR ? 2 : 1) }

    /// The rate the stream is decoded at: twice the core's where SBR is implied.
    package var outputRate: Int { impliesSBR ? 2 * sampleRate : sampleRate }

    /// Channels the stream is decoded to: two of a mono core where SBR (and so parametric
    /// stereo) is implied.
    package var outputChannels: Int { impliesSBR && channels == 1 ? 2 : channels }

    /// The stream's format, given the packet size convention (one ADTS frame per packet).
    package var format: AudioFormat {
        let name = ["Main", "LC", "SSR", "LTP"][profile]
        let core = impliesSBR ? ", \(sampleRate) Hz \(channels == 1 ? "mono " : "")core" : ""
        return AudioFormat(
            codec: .aac, codecDescription: "AAC \(name) (ADTS, \(isMPEG2 ? "MPEG-2" : "MPEG-4")\(core))",
            sampleRate: outputRate, channels: outputChannels, framesPerPacket: frameCount)
    }
}
