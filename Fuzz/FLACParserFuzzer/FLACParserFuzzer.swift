// The libFuzzer entry point for native FLAC: the parser (metadata blocks, frame sync, CRC-8 and
// CRC-16) and libFLAC fed the frames it finds. Built by `scripts/fuzz.sh` as the other targets
// are; every broken invariant is a `require`, which crashes and makes libFuzzer save the input.

import FuzzSupport
@testable import SlipstreamAudio
@testable import SlipstreamMedia

/// Called by libFuzzer with each input: `fLaC` and then the input, one whole stream.
func fuzzFLAC(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    let stream = input.starts(with: Array("fLaC".utf8)) ? input : Array("fLaC".utf8) + input
    var random = SplitMix64(seed: UInt64(stream.count) << 8 | UInt64(input.first ?? 0))
    let whole = FLACFuzzRun(stream, random: &random) { _ in stream.count }
    // Chunks of at most 7, 64 or 4096 bytes, or the whole (one byte at a time is too slow for
    // 64 KiB inputs under ASan; the tests do it on real files).
    let largest = [7, 64, 4096, stream.count][Int(random.next() % 4)]
    let split = FLACFuzzRun(stream, random: &random) { Int.random(in: 1...max(largest, 1), using: &$0) }
    require(split.events == whole.events && split.error == whole.error, "a split changed the output")
    whole.decode(stream)
    // A discontinuity among the frames (as a seek makes): what follows is frames found by their
    // sync, each timed by its header, in the same format. (Before the format is known, a stream
    // cut at random may be anything: even MPEG audio, to the sniffer.)
    if let format = whole.format, let first = whole.packets.first?.0.offset, Int(first) < stream.count {
        let offset = Int(first) + Int(random.next() % UInt64(stream.count - Int(first)))
        var parser = AudioStreamParser()
        var sink = FLACFuzzSink()
        _ = try? stream.withUnsafeBytes { raw throws(AudioParserError) in
            try parser.parse(UnsafeRawBufferPointer(rebasing: raw[..<offset]), into: &sink)
            parser.discontinuity(at: Int64(offset))
            try parser.parse(UnsafeRawBufferPointer(rebasing: raw[offset...]), into: &sink)
            try parser.finish(into: &sink)
        }
        for packet in sink.packets where packet.offset >= Int64(offset) {
            require(packet.startFrame != nil, "a packet after a seek has no time")
        }
        require(sink.format == nil || sink.format == format, "the format changed across a discontinuity")
    }
    return 0
}

/// One parse of a stream fed in chunks, with its events and packets' bytes.
struct FLACFuzzRun {
    var events: [AudioStreamEvent]
    var error: AudioParserError?
    var format: AudioFormat?
    var packets: [(AudioPacket, Range<Int>)]

    init(_ stream: [UInt8], random: inout SplitMix64, chunkSizes: (inout SplitMix64) -> Int) {
        var parser = AudioStreamParser(hints: AudioStreamHints(totalByteCount: Int64(stream.count)))
        var sink = FLACFuzzSink()
        let result = stream.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                try parser.parse(wholeStream: raw, chunkSize: { chunkSizes(&random) }, into: &sink) { parser, _ in
                    // Held: one frame at most (the largest possible: 65535 frames of 8 channels of
                    // 33 bits, verbatim), never a metadata block.
                    require(parser.heldCount <= 2_300_000, "the parser holds \(parser.heldCount) bytes")
                    return true
                }
            }
        }
        events = sink.events
        error = result.failure
        format = sink.format
        packets = sink.packets.map { ($0, Int($0.offset)..<Int($0.offset) + $0.size) }
        for (packet, range) in packets {
            require(range.lowerBound >= 0 && range.upperBound <= stream.count, "packet \(packet) outside the stream")
            require(packet.frameCount > 0 && packet.frameCount <= 65536, "packet \(packet) of \(packet.frameCount) frames")
        }
        if let total = parser.properties.trimmedFrameCount { require(total >= 0, "a negative length") }
    }

    /// Decodes every packet with libFLAC: each gives exactly its frames, whatever its bytes.
    func decode(_ stream: [UInt8]) {
        guard let format, let decoder = try? FLACDecoder(format: format) else { return }
        let buffer = PCMBuffer(format: decoder.outputFormat)
        for (packet, range) in packets {
            buffer.removeAll()
            stream[range].withUnsafeBytes { try? decoder.decode($0, packet: packet, into: buffer) }
            require(buffer.frameCount == packet.frameCount, "decoded \(buffer.frameCount) frames of \(packet.frameCount)")
        }
    }
}

/// Collects events (packets without their bytes) and the format.
struct FLACFuzzSink: AudioStreamSink {
    var events: [AudioStreamEvent] = []
    var packets: [AudioPacket] = []
    var format: AudioFormat?

    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        events.append(.propertiesChanged(properties))
        if let new = properties.format { format = new }
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        require(bytes.count == packet.size, "a packet's bytes are not its size")
        events.append(.packet(packet))
        packets.append(packet)
    }
}
