/// FLAC's STREAMINFO metadata block (34 bytes, big-endian bit fields): the block sizes, frame
/// sizes, sample rate, channels, bits per sample and total samples of the stream. Native FLAC
/// has it first after `fLaC`; FLAC-in-Ogg in its first packet. `AudioFormat.magicCookie` of a
/// FLAC stream is these 34 bytes.
package struct FLACStreamInfo: Hashable, Sendable {
    /// The block's size in bytes.
    package static let size = 34

    /// The smallest and largest block sizes in the stream (frames per channel); equal for a
    /// fixed-blocksize stream.
    package var minimumBlockSize: Int
    package var maximumBlockSize: Int
    /// The largest frame in bytes; 0 when unknown.
    package var maximumFrameSize: Int
    /// Frames per second.
    package var sampleRate: Int
    /// 1 to 8.
    package var channels: Int
    /// 4 to 32.
    package var bitsPerSample: Int
    /// Frames (samples per channel) in the stream; 0 when unknown.
    package var totalFrames: Int64

    /// Reads the 34 bytes of `body`; `nil` when a field is out of range.
    package init?(_ body: UnsafeRawBufferPointer) {
        guard body.count >= Self.size else { return nil }
        minimumBlockSize = Int(body.bigEndian(at: 0, count: 2))
        maximumBlockSize = Int(body.bigEndian(at: 2, count: 2))
        maximumFrameSize = Int(body.bigEndian(at: 7, count: 3))
        let packed = body.bigEndian(at: 10, count: 8)
        sampleRate = Int(packed >> 44)
        channels = Int(packed >> 41 & 7) + 1
        bitsPerSample = Int(packed >> 36 & 31) + 1
        totalFrames = Int64(packed & 0xF_FFFF_FFFF)
        guard minimumBlockSize >= 16, maximumBlockSize >= minimumBlockSize, sampleRate > 0, bitsPerSample >= 4 else {
            return nil
        }
    }

    /// Every block has the same size (the last may be shorter).
    package var isFixedBlockSize: Bool { minimumBlockSize == maximumBlockSize }

    /// The format of the stream, with `cookie` (the 34 bytes) as its magic cookie; `container`
    /// is added to the description (e.g. " in Ogg").
    package func format(cookie: [UInt8], container: String = "") -> AudioFormat {
        AudioFormat(
            codec: .flac, codecDescription: "FLAC\(container) \(bitsPerSample)-bit", sampleRate: sampleRate,
            channels: channels, framesPerPacket: maximumBlockSize, magicCookie: Array(cookie.prefix(Self.size)))
    }
}
