/// What the Ogg parser needs of a Vorbis stream's headers to know how many frames each audio
/// packet decodes to: the identification header's channels, rate and two block sizes, and the
/// setup header's modes (which block size each mode uses). The codebooks, floors and residues
/// are left to libvorbis.
package struct VorbisSetup: Hashable, Sendable {
    /// Channels and sample rate (Hz).
    package let channels: Int
    package let sampleRate: Int
    /// The short and long block sizes (samples).
    package let blockSizes: (short: Int, long: Int)
    /// Each mode's block flag (true: the long block size); empty until the setup header is read.
    package private(set) var longModes: [Bool] = []

    package static func == (a: VorbisSetup, b: VorbisSetup) -> Bool {
        a.channels == b.channels && a.sampleRate == b.sampleRate && a.blockSizes == b.blockSizes && a.longModes == b.longModes
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(channels)
        hasher.combine(sampleRate)
        hasher.combine(blockSizes.short)
        hasher.combine(blockSizes.long)
        hasher.combine(longModes)
    }

    /// Reads the identification header (packet type 1); `nil` when it is not a valid one.
    package init?(identification packet: UnsafeRawBufferPointer) {
        guard packet.count >= 30, packet.starts(with: "\u{1}vorbis"), packet.littleEndian(at: 7, count: 4) == 0,
            packet[29] & 1 == 1
        else { return nil }
        channels = Int(packet[11])
        sampleRate = Int(packet.littleEndian(at: 12, count: 4))
        let short = 1 << Int(packet[28] & 0x0F), long = 1 << Int(packet[28] >> 4)
        guard channels > 0, sampleRate > 0, sampleRate <= 1_000_000, short >= 64, short <= long, long <= 8192 else {
            return nil
        }
        blockSizes = (short, long)
    }

    /// Reads the modes of the setup header (packet type 5) from its end, as they are the last
    /// thing in it: each mode is a block flag, two 16-bit zero fields and an 8-bit mapping, and
    /// a 6-bit count precedes them. Read backwards from the framing bit, the longest run of
    /// fields that fits the count is taken. False when no such run is found.
    package mutating func readModes(setup packet: UnsafeRawBufferPointer) -> Bool {
        guard packet.count > 8, packet.starts(with: "\u{5}vorbis") else { return false }
        var reader = ReverseBitReader(packet, floor: 7 * 8)
        // Padding zero bits, then the framing bit.
        while let bit = reader.read(1), bit == 0 {}
        guard reader.isValid else { return false }
        let afterFraming = reader
        var count = 0, found = 0
        while count < 64, reader.remaining >= 41 + 6 {
            guard let mapping = reader.read(8), mapping <= 63, reader.read(16) == 0, reader.read(16) == 0 else { break }
            _ = reader.read(1)
            count += 1
            var peek = reader
            if let stated = peek.read(6), stated + 1 == count { found = count }
        }
        guard found > 0 else { return false }
        var flags = [Bool](repeating: false, count: found)
        reader = afterFraming
        for mode in (0..<found).reversed() {
            _ = reader.read(40)
            flags[mode] = reader.read(1) == 1
        }
        longModes = flags
        return true
    }

    /// The block size of an audio packet, or `nil` for a packet that is not audio or names no mode.
    package func blockSize(of packet: UnsafeRawBufferPointer) -> Int? {
        guard !packet.isEmpty, packet[0] & 1 == 0, !longModes.isEmpty else { return nil }
        var bits = 0
        while 1 << bits < longModes.count { bits += 1 }
        let mode = Int(packet[0] >> 1) & (1 << bits - 1)
        guard mode < longModes.count else { return nil }
        return longModes[mode] ? blockSizes.long : blockSizes.short
    }
}

/// Reads a Vorbis bit stream (least significant bit first) backwards from its end, never below
/// bit `floor`.
private struct ReverseBitReader {
    private let bytes: UnsafeRawBufferPointer
    private let floor: Int
    /// The number of the next bit to read, counting down (bit `i` is bit `i % 8` of byte `i / 8`).
    private var next: Int
    /// False once a read ran past the floor.
    package private(set) var isValid = true

    package init(_ bytes: UnsafeRawBufferPointer, floor: Int) {
        self.bytes = bytes
        self.floor = floor
        next = bytes.count * 8 - 1
    }

    /// Bits left above the floor.
    package var remaining: Int { next - floor + 1 }

    /// The `count` bits before the ones read, as the writer wrote them (first written lowest),
    /// or `nil` past the floor.
    package mutating func read(_ count: Int) -> UInt64? {
        guard remaining >= count else {
            isValid = false
            return nil
        }
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 1 | UInt64(bytes[next >> 3] >> UInt8(next & 7) & 1)
            next -= 1
        }
        return value
    }
}
