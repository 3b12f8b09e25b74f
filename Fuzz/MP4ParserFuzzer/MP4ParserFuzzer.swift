// The libFuzzer entry point for the MP4 stage of the audio stream parser (built as
// AudioParserFuzzer is: see scripts/fuzz.sh). Every broken invariant is a `require`.

import FuzzSupport
@testable import SlipstreamMedia

/// Called by libFuzzer with each input: the input is one whole MP4 stream.
func fuzzMP4Parser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let stream = fuzzInput(data, size)
    let whole = parseMP4(stream, jumping: false) { _ in stream.count }
    let split = parseMP4(stream, jumping: false) { Int.random(in: 1...64, using: &$0) }
    let jumped = parseMP4(stream, jumping: true) { Int.random(in: 1...4096, using: &$0) }
    require(split.packets == whole.packets && split.error == whole.error, "a split changed the packets")
    require(jumped.packets == whole.packets && jumped.error == whole.error, "jumping over the audio changed the packets")
    // Jumps to the seek table's points, and into the middle (a fragmented file's search probes
    // anywhere): every packet found from there is still the stream's bytes.
    var jumps = [Int64(stream.count / 3)]
    if let table = whole.seekTable {
        for time in [-1, 0, 0.02, 1, 1e9, .infinity, .nan] as [Double] {
            guard let point = table.offset(forTime: time) else { continue }
            require(point.offset >= 0 && point.frame >= 0, "seek point \(point) for \(time)")
            jumps.append(point.offset)
        }
    }
    for offset in jumps {
        var parser = AudioStreamParser()
        var sink = PacketSink(stream: stream)
        stream.withUnsafeBytes { raw in
            _ = try? parser.parse(raw, into: &sink)
            parser.discontinuity(at: offset)
            let from = Int(min(max(offset, 0), Int64(raw.count)))
            _ = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[from...]), into: &sink)
        }
    }
    return 0
}

/// What a run found: the packets (offset, size, first frame) or the error.
struct MP4Outcome {
    var packets: [AudioPacket] = []
    var error: AudioParserError?
    var seekTable: AudioSeekTable?
}

/// Checks that every packet's bytes are the stream's at its offset.
struct PacketSink: AudioStreamSink {
    let stream: [UInt8]
    var packets: [AudioPacket] = []

    init(stream: [UInt8]) { self.stream = stream }

    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        if let format = properties.format, format.codec == .aacRaw {
            require(!format.magicCookie.isEmpty && format.sampleRate > 0, "an MP4 format without a configuration")
        }
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        guard !stream.isEmpty else { return }
        let start = Int(packet.offset)
        require(start >= 0 && start + bytes.count <= stream.count, "a packet outside the stream at \(start)")
        require(stream[start..<start + bytes.count].elementsEqual(bytes), "a packet's bytes are not the stream's at \(start)")
        require(bytes.count <= MP4Parser.maximumSampleSize, "a packet of \(bytes.count) bytes")
        packets.append(packet)
    }
}

/// Parses `stream` in chunks of the sizes `chunkSizes` gives, from where the parser wants its
/// bytes (jumping over what it prefers not to read when `jumping`), then finishes.
func parseMP4(_ stream: [UInt8], jumping: Bool, chunkSizes: (inout SplitMix64) -> Int) -> MP4Outcome {
    var random = SplitMix64(seed: UInt64(stream.count))
    var parser = AudioStreamParser()
    var sink = PacketSink(stream: stream)
    var backward = 0
    let result = stream.withUnsafeBytes { raw in
        Result { () throws(AudioParserError) in
            try parser.parse(wholeStream: raw, chunkSize: { chunkSizes(&random) }, into: &sink) { parser, end in
                require(parser.heldCount <= 1 << 20, "the parser holds \(parser.heldCount) bytes")
                if jumping, parser.prefersJump { parser.skipUnread() }
                if parser.nextByteOffset < Int64(end) {
                    backward += 1
                    require(backward <= MP4Parser.maximumBackwardJumps + 1, "the parser jumped back \(backward) times")
                }
                return true
            }
        }
    }
    return MP4Outcome(packets: sink.packets, error: result.failure, seekTable: parser.seekTable)
}
