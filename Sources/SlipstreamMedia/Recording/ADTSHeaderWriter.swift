/// The 7-byte ADTS header (ISO/IEC 13818-7; no CRC) that makes a raw AAC frame from an MP4,
/// fragmented MP4 or HLS stream a frame of an `.aac` file, as an ADTS stream carries it: the
/// core profile (AAC Main, LC, SSR or LTP), the core sampling rate and the channel
/// configuration from the AudioSpecificConfig, and the frame's length. HE-AAC goes as its LC
/// core at the core rate: decoders find the SBR (and parametric stereo) data in the frames, as
/// in every HE-AAC ADTS stream. Pure.
package enum ADTSHeaderWriter {
    package static let size = 7

    /// The header's first bytes for frames of `setup` (an AudioSpecificConfig), their length
    /// left out; nil for one ADTS cannot state (960-sample frames, a channel configuration of
    /// 0, an object type beyond LTP).
    package static func template(for setup: [UInt8]) -> [UInt8]? {
        guard let config = AudioSpecificConfig(setup), !config.isShortFrame, (1...4).contains(config.objectType),
            let rate = AudioSpecificConfig.rates.firstIndex(of: config.sampleRate)
        else { return nil }
        // Channel configurations 1 to 6 are that many channels; 7 is 7.1 (8 channels).
        guard let channels = config.channels == 8 ? 7 : (1...6).contains(config.channels) ? config.channels : nil else {
            return nil
        }
        let profile = config.objectType - 1
        // Sync word, MPEG-4, layer 0, no CRC; profile, rate index, private bit, channels.
        return [
            0xFF, 0xF1, UInt8(profile << 6 | rate << 2 | channels >> 2), UInt8((channels & 3) << 6), 0, 0x1F, 0xFC,
        ]
    }

    /// Appends `template` completed for a frame of `payload` bytes (the frame length counts
    /// the header; the buffer fullness says "variable rate").
    package static func append(_ template: [UInt8], payload: Int, to bytes: inout [UInt8]) {
        let length = payload + size
        bytes.append(template[0])
        bytes.append(template[1])
        bytes.append(template[2])
        bytes.append(template[3] | UInt8(truncatingIfNeeded: length >> 11 & 3))
        bytes.append(UInt8(truncatingIfNeeded: length >> 3))
        bytes.append(UInt8(truncatingIfNeeded: (length & 7) << 5) | template[5])
        bytes.append(template[6])
    }

    /// The longest frame an ADTS header can state (13 bits of length, the header included).
    package static let maximumPayload = (1 << 13) - 1 - size
}
