/// A CAF packet table (`pakt`) read as it arrives: its header (packets, valid frames, priming
/// and remainder frames) and one size for each packet, as a variable-length integer (7 bits a
/// byte, most significant first, the high bit set on every byte but the last), for audio of
/// variable packet sizes and a constant number of frames a packet (AAC). The sizes go into an
/// `MP4SampleTable` of one chunk, placed once the audio's start is known: CAF's audio is one
/// run of packets, which that table describes as MP4's are (seeking, counting, resynchronising).
package struct CAFPacketTable: Hashable, Sendable {
    /// The header's bytes.
    package static let headerSize = 24
    /// The largest packet taken (bytes): AAC's largest is 6,144 bits a channel, 48 KiB for 8.
    package static let maximumPacketSize = 64 << 10

    /// Packets the header states.
    package let packetCount: Int
    /// Frames the encoder added before the audio and after it.
    package let primingFrames: Int64
    package let remainderFrames: Int64
    /// The sizes read so far, the table they go into.
    package private(set) var table = MP4SampleTable()
    /// The variable-length integer being read.
    private var value = 0

    /// Reads the header (`headerSize` bytes) of a table of `size` bytes, for packets of
    /// `framesPerPacket` frames; throws a clear error for counts no file of `size` bytes holds
    /// or that disagree.
    package init(header: UnsafeRawBufferPointer, size: Int64, framesPerPacket: Int, offset: Int64) throws(AudioParserError) {
        let packets = Int64(bitPattern: header.bigEndian(at: 0, count: 8))
        let valid = Int64(bitPattern: header.bigEndian(at: 8, count: 8))
        let priming = Int64(header.bigEndian(at: 16, count: 4)), remainder = Int64(header.bigEndian(at: 20, count: 4))
        // Every size takes a byte at least.
        guard packets >= 0, packets <= min(size - Int64(Self.headerSize), Int64(MP4SampleTable.maximumSampleCount)) else {
            throw AudioParserError(
                code: .malformed, message: "CAF packet table (pakt) of \(size) bytes stating \(packets) packets", offset: offset)
        }
        let frames = packets * Int64(framesPerPacket)
        guard valid >= 0, valid <= frames, priming + remainder == frames - valid else {
            throw AudioParserError(
                code: .malformed,
                message:
                    "CAF packet table (pakt): \(packets) packets of \(framesPerPacket) frames are not \(valid) valid, \(priming) priming and \(remainder) remainder frames",
                offset: offset)
        }
        packetCount = Int(packets)
        primingFrames = priming
        remainderFrames = remainder
    }

    /// Every packet's size has been read.
    package var isComplete: Bool { table.sizes.count == packetCount }

    /// Reads the sizes in `bytes` (the table's next bytes, from stream offset `offset`, which
    /// may end inside a size); an error names the offending byte, wherever the input was split.
    package mutating func read(_ bytes: UnsafeRawBufferPointer, offset: Int64) throws(AudioParserError) {
        for (index, byte) in bytes.enumerated() {
            guard !isComplete else { return }
            value = value << 7 | Int(byte & 0x7F)
            guard value <= Self.maximumPacketSize else {
                throw AudioParserError(
                    code: .malformed, message: "CAF packet table (pakt) with a packet of over \(Self.maximumPacketSize) bytes",
                    offset: offset + Int64(index))
            }
            guard byte & 0x80 == 0 else { continue }
            guard value > 0 else {
                throw AudioParserError(
                    code: .malformed, message: "CAF packet table (pakt) with a packet of 0 bytes", offset: offset + Int64(index))
            }
            table.sizes.append(Int64(value))
            value = 0
        }
    }

    /// The table of the packets, the first at `start` (the audio's first byte).
    package func placed(at start: Int64) -> MP4SampleTable {
        var placed = table
        placed.sampleCount = packetCount
        placed.chunkOffsets.append(start)
        placed.runs = [MP4SampleTable.ChunkRun(firstChunk: 0, samplesPerChunk: max(packetCount, 1))]
        return placed
    }
}
