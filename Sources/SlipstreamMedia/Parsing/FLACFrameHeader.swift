/// The header of a FLAC frame: a 14-bit sync (0xFFF8 or 0xFFF9 with the blocking strategy),
/// block size, sample rate, channel assignment and sample size codes, the frame or sample number
/// in FLAC's UTF-8-like coding, the block size and sample rate where the codes defer to the end
/// of the header, and a CRC-8 over it all.
package struct FLACFrameHeader: Hashable, Sendable {
    /// The longest header: 4 fixed bytes, 7 of number, 2 of block size, 2 of rate, the CRC-8.
    package static let maximumSize = 16

    /// Bytes in the header, CRC-8 included.
    package var size: Int
    /// Frames (samples per channel) in the block.
    package var blockSize: Int
    /// Frames per second; 0 when the header defers to STREAMINFO.
    package var sampleRate: Int
    /// Channels in the frame.
    package var channels: Int
    /// Bits per sample; 0 when the header defers to STREAMINFO.
    package var bitsPerSample: Int
    /// The stream's block sizes vary, and `number` is a sample number (else a frame number).
    package var isVariableBlockSize: Bool
    /// The frame number (fixed block size) or the first sample's number (variable).
    package var number: Int64

    /// Whether a frame header may start at `index` (its first bytes, possibly cut off by the end).
    package static func mayStart(_ window: UnsafeRawBufferPointer, at index: Int) -> Bool {
        guard window[index] == 0xFF else { return false }
        return index + 1 == window.count || window[index + 1] & 0xFE == 0xF8
    }

    /// The outcome of reading a header at the front of a window.
    package enum Reading: Hashable, Sendable {
        /// A valid header.
        case header(FLACFrameHeader)
        /// No header here (bad sync, a reserved value, a wrong CRC-8).
        case invalid
        /// The window is too short to tell: call again with this many bytes.
        case need(Int)
    }

    /// Reads the header at `index` of `window`.
    package static func read(_ window: UnsafeRawBufferPointer, at index: Int = 0) -> Reading {
        let available = window.count - index
        guard available >= 5 else { return available <= 0 || mayStart(window, at: index) ? .need(index + 5) : .invalid }
        let b = { (i: Int) in window[index + i] }
        guard b(0) == 0xFF, b(1) & 0xFE == 0xF8, b(3) & 1 == 0 else { return .invalid }
        let blockCode = Int(b(2) >> 4), rateCode = Int(b(2) & 15)
        let channelCode = Int(b(3) >> 4), sizeCode = Int(b(3) >> 1 & 7)
        guard blockCode != 0, rateCode != 15, channelCode <= 10, sizeCode != 3 else { return .invalid }
        // The coded number: a UTF-8-like sequence of up to 7 bytes.
        let first = b(4)
        // Leading ones: 0 for one byte, 2-7 for 2-7 bytes (1 and 8 are not a first byte).
        let ones = (~first).leadingZeroBitCount
        guard ones != 1, ones != 8 else { return .invalid }
        let extra = max(ones - 1, 0)
        let variable = b(1) & 1 == 1
        guard variable || extra <= 5 else { return .invalid }
        let tail = (blockCode == 6 ? 1 : blockCode == 7 ? 2 : 0) + (rateCode == 12 ? 1 : rateCode >= 13 ? 2 : 0)
        let size = 5 + extra + tail + 1
        guard available >= size else { return .need(index + size) }
        var number = Int64(extra == 0 ? first : first & (0x3F >> extra))
        for i in 0..<extra {
            let byte = b(5 + i)
            guard byte & 0xC0 == 0x80 else { return .invalid }
            number = number << 6 | Int64(byte & 0x3F)
        }
        var at = 5 + extra
        let blockSize: Int
        switch blockCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << (blockCode - 2)
        case 6: blockSize = Int(b(at)) + 1; at += 1
        case 7: blockSize = Int(b(at)) << 8 + Int(b(at + 1)) + 1; at += 2
        default: blockSize = 256 << (blockCode - 8)
        }
        let rates = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000]
        let sampleRate: Int
        switch rateCode {
        case 12: sampleRate = Int(b(at)) * 1000
        case 13: sampleRate = Int(b(at)) << 8 + Int(b(at + 1))
        case 14: sampleRate = (Int(b(at)) << 8 + Int(b(at + 1))) * 10
        default: sampleRate = rates[rateCode]
        }
        guard rateCode < 12 || sampleRate > 0 else { return .invalid }
        let header = UnsafeRawBufferPointer(rebasing: window[index..<(index + size)])
        guard FLACChecksum.crc8(header) == 0 else { return .invalid }
        return .header(
            FLACFrameHeader(
                size: size, blockSize: blockSize, sampleRate: sampleRate, channels: channelCode < 8 ? channelCode + 1 : 2,
                bitsPerSample: [0, 8, 12, 0, 16, 20, 24, 32][sizeCode], isVariableBlockSize: variable, number: number))
    }

    /// Whether the header fits a stream described by `info`: the same rate, channels and sample
    /// size where it states them, and a block no larger than the largest.
    package func fits(_ info: FLACStreamInfo) -> Bool {
        (sampleRate == 0 || sampleRate == info.sampleRate) && channels == info.channels
            && (bitsPerSample == 0 || bitsPerSample == info.bitsPerSample) && blockSize <= info.maximumBlockSize
    }

    /// The first sample's number in a stream described by `info`.
    package func firstFrame(_ info: FLACStreamInfo) -> Int64 {
        isVariableBlockSize ? number : number * Int64(info.maximumBlockSize)
    }
}
