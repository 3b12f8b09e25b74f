/// What the side information of an MPEG Layer III frame says, read to tell a frame no encoder
/// could have written: libmpg123 decodes such a frame as silence or noise and returns success
/// (it only prints, and not with `MPG123_QUIET`), so the decoder checks first what libmpg123
/// and ffmpeg both check (ISO/IEC 11172-3 2.4.1.7, 13818-3 2.4.1.7):
///
/// - `big_values` above 288 in a granule (its pairs would run past the 576 lines): ffmpeg's "big_values
///   too big", an `AVERROR_INVALIDDATA`; libmpg123's "big_values too large!";
/// - window switching with block type 0 (reserved): ffmpeg's "invalid block type", libmpg123's
///   "Blocktype == 0 and window-switching == 1 not allowed";
/// - more main data (`part2_3_length`, all granules and channels) than there are bits from
///   `main_data_begin` to the frame's end: libmpg123's "part2_3_length too large for available
///   bit count", ffmpeg's overread ("invalid new backstep").
///
/// A frame's CRC is not checked: neither decoder checks it by default (some encoders wrote wrong
/// ones), and it covers the side information these checks read anyway.
package struct LayerIIISideInfo: Sendable, Hashable {
    /// Bytes of main data, before this frame's own, where its main data starts.
    package var mainDataBegin: Int
    /// Bits of main data (scalefactors and Huffman code) of every granule and channel.
    package var mainDataBits: Int
    /// The frame's own bytes of main data: those after its header, CRC and side information.
    package var ownMainDataBytes: Int
    /// Every granule and channel has `big_values` of 288 at most and no reserved block type.
    package var isPossible: Bool

    /// The side information of `packet`, one whole Layer III frame whose header is `header`;
    /// nil for another layer, or a packet too short to hold it.
    package init?(_ packet: UnsafeRawBufferPointer, header: MPEGFrameHeader) {
        guard header.layer == 3 else { return nil }
        let start = 4 + (header.hasCRC ? 2 : 0)
        let size = Self.size(header)
        guard packet.count >= start + size else { return nil }
        var bits = BitReader(packet, byte: start)
        let isMPEG1 = header.version == .mpeg1
        let channels = header.channels
        mainDataBegin = bits.read(isMPEG1 ? 9 : 8)
        // Private bits, then MPEG-1's scfsi (4 bits a channel).
        bits.skip(isMPEG1 ? (channels == 1 ? 5 : 3) + 4 * channels : (channels == 1 ? 1 : 2))
        var total = 0
        var possible = true
        for _ in 0..<(isMPEG1 ? 2 : 1) {
            for _ in 0..<channels {
                total += bits.read(12)
                if bits.read(9) > 288 { possible = false }
                // global_gain, then scalefac_compress (4 bits; 9 in MPEG-2/2.5).
                bits.skip(8 + (isMPEG1 ? 4 : 9))
                // Window switching: block type (2 bits), then 20 more; without: 22 bits.
                if bits.read(1) == 1 {
                    if bits.read(2) == 0 { possible = false }
                    bits.skip(20)
                } else {
                    bits.skip(22)
                }
                // preflag (MPEG-1 only), scalefac_scale, count1table_select.
                bits.skip(isMPEG1 ? 3 : 2)
            }
        }
        mainDataBits = total
        ownMainDataBytes = packet.count - start - size
        isPossible = possible
    }

    /// Whether the frame's main data lies between `main_data_begin` and its end.
    package var fits: Bool { mainDataBits <= 8 * (mainDataBegin + ownMainDataBytes) }

    /// Bytes of side information: 17 or 32 in MPEG-1 (mono, two channels), 9 or 17 in MPEG-2/2.5.
    package static func size(_ header: MPEGFrameHeader) -> Int {
        header.version == .mpeg1 ? (header.channels == 1 ? 17 : 32) : (header.channels == 1 ? 9 : 17)
    }
}

/// Bits of a byte buffer read most significant first, from a position counted in bits.
private struct BitReader {
    package let bytes: UnsafeRawBufferPointer
    package var position: Int

    package init(_ bytes: UnsafeRawBufferPointer, byte: Int) {
        self.bytes = bytes
        position = byte * 8
    }

    /// The next `count` bits (at most 16) as an integer.
    package mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    package mutating func skip(_ count: Int) { position += count }
}
