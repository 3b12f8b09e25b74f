// The libFuzzer entry point for the Ogg parser (the `AudioStreamParser` on Ogg streams) and the
// Vorbis and Opus decoders behind it. `scripts/fuzz.sh` builds it with -sanitize=fuzzer,address
// and -enable-testing. Every broken invariant is a `require`, which crashes and makes libFuzzer
// save the input.

import FuzzSupport
@testable import SlipstreamAudio
@testable import SlipstreamMedia

/// Called by libFuzzer with each input: a script of pages (`OggPageScript`).
func fuzzOggParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let script = fuzzInput(data, size)
    var random = SplitMix64(seed: UInt64(script.first ?? 0) | UInt64(script.count) << 8)
    let stream = OggPageScript.stream(script)
    let whole = OggRun(stream, decoding: true, random: &random) { _ in stream.count }
    let largest = [1, 7, 300, 5000][Int(random.next() % 4)]
    let split = OggRun(stream, decoding: false, random: &random) { Int.random(in: 1...largest, using: &$0) }
    require(split.events == whole.events && split.error == whole.error, "a split changed the output")
    require(split.maximumHeld <= OggPageHeader.maximumPageSize, "the parser held \(split.maximumHeld) bytes")
    // A jump to any offset, and the tail's duration: no trap, bounded.
    var parser = AudioStreamParser()
    var sink = DiscardingSink()
    stream.withUnsafeBytes { raw in
        let cut = Int(random.next() % UInt64(raw.count + 1)), target = Int(random.next() % UInt64(raw.count + 1))
        _ = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[..<cut]), into: &sink)
        parser.discontinuity(at: Int64(target))
        _ = try? parser.parse(UnsafeRawBufferPointer(rebasing: raw[target...]), into: &sink)
        _ = try? parser.finish(into: &sink)
        require(parser.heldCount <= OggPageHeader.maximumPageSize, "held \(parser.heldCount) after a jump")
        if case .ogg(let ogg) = parser.stage, let frames = ogg.framesAtEnd(ofTail: UnsafeRawBufferPointer(rebasing: raw[cut...])) {
            require(frames >= 0, "frames at the end \(frames)")
        }
    }
    return 0
}

/// One run of the parser over a stream in chunks; with `decoding`, every packet is decoded by
/// the decoder of its format and must give exactly its frames.
struct OggRun {
    var events: [AudioStreamEvent] = []
    var error: AudioParserError?
    var maximumHeld = 0

    init(_ stream: [UInt8], decoding: Bool, random: inout SplitMix64, chunkSizes: (inout SplitMix64) -> Int) {
        var parser = AudioStreamParser()
        var sink = DecodingSink(decoding: decoding)
        var held = 0
        let result = stream.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                try parser.parse(wholeStream: raw, chunkSize: { chunkSizes(&random) }, into: &sink) { parser, _ in
                    held = max(held, parser.heldCount)
                    return true
                }
            }
        }
        events = sink.events
        error = result.failure
        maximumHeld = held
    }
}

/// Keeps the events, checks each packet, and decodes it when asked.
struct DecodingSink: AudioStreamSink {
    let decoding: Bool
    var events: [AudioStreamEvent] = []
    var format: AudioFormat?
    var decoder: (any AudioDecoder)?
    var buffer: PCMBuffer?

    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        events.append(.propertiesChanged(properties))
        guard decoding, let new = properties.format, new != format else { return }
        format = new
        decoder = try? AudioDecoders.make(for: new)
        buffer = decoder.map { PCMBuffer(format: $0.outputFormat) }
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        events.append(.packet(packet))
        require(bytes.count == packet.size && packet.size <= OggParser.maximumPacketSize, "packet \(packet) of \(bytes.count) bytes")
        require(packet.frameCount >= 0 && packet.frameCount <= 65536, "packet \(packet) has impossible frames")
        guard let decoder, let buffer else { return }
        buffer.removeAll()
        do {
            try decoder.decode(bytes, packet: packet, into: buffer)
            require(buffer.frameCount == packet.frameCount, "decoded \(buffer.frameCount) frames of \(packet.frameCount)")
        } catch {
            // A decoder may give up on a hostile stream, with an error.
        }
    }
}
