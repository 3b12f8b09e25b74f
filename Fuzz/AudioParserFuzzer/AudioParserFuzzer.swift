// The libFuzzer entry point for the audio stream parser. `scripts/fuzz.sh` builds it with
// SwiftPM (the package declares it when SLIPSTREAM_FUZZ=1), with `-sanitize=fuzzer,address` and
// `-enable-testing`, so that it can check internal state such as the bytes the parser holds.
// Every broken invariant is a `require`, which crashes and makes libFuzzer save the input.

import FoundationEssentials
import FuzzSupport
@testable import SlipstreamMedia

/// Called by libFuzzer with each input: the input is one whole stream.
func fuzzAudioStreamParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var fuzzCase = AudioParserFuzzCase(fuzzInput(data, size))
    fuzzCase.run()
    return 0
}

/// One fuzz input and the checks run on it: the parser fed all at once, in random splits, with
/// skipped bytes left unread, and across a discontinuity; a container it cannot play refused at
/// once; the seek table queried; the stream summarised from its head and tail.
struct AudioParserFuzzCase {
    /// The most bytes a parse step may ask the parser to hold (one packet or tag field plus the
    /// next header): a larger request means memory a hostile stream controls.
    static let maximumHeld = 1 << 20

    let stream: [UInt8]
    /// Picks the splits and the discontinuity: the first byte and the length, so that a saved
    /// crash input reproduces exactly.
    var random: SplitMix64

    init(_ stream: [UInt8]) {
        self.stream = stream
        random = SplitMix64(seed: UInt64(stream.first ?? 0) | UInt64(stream.count) << 8)
    }

    mutating func run() {
        let count = stream.count
        let whole = parse(chunkSizes: { _ in count })
        let maximumChunk = [1, 16, 4096, max(stream.count, 1)][Int(random.next() % 4)]
        // One byte at a time up to 8 KiB; a longer input in chunks of 1...7 bytes instead.
        let largest = stream.count > 8192 && maximumChunk == 1 ? 7 : maximumChunk
        let split = parse(chunkSizes: { Int.random(in: 1...largest, using: &$0) })
        require(split == whole, "a split changed the output: \(split.firstDifference(from: whole))")
        let unread = parse(chunkSizes: { Int.random(in: 1...4096, using: &$0) }, skippingUnread: true)
        require(
            unread.events == whole.events && unread.error == whole.error,
            "leaving skipped bytes unread changed the output: \(unread.firstDifference(from: whole))")
        let counted = parse(chunkSizes: { Int.random(in: 1...4096, using: &$0) }, skippingAudio: true)
        require(
            counted.final == whole.final && counted.error == whole.error,
            "counting uncompressed audio from its size changed the totals: \(counted.firstDifference(from: whole))")
        checkRefusal(whole)
        checkSeekTable(whole)
        checkLayerIIISideInfo(whole)
        parseAcrossDiscontinuity()
        summarise()
    }

    /// Parses the stream in chunks of the sizes `chunkSizes` gives, then finishes; with
    /// `skippingUnread`, bytes the parser would drop are jumped over instead of fed; with
    /// `skippingAudio`, audio counted from sizes (uncompressed, MP4 samples) is not fed.
    mutating func parse(chunkSizes: (inout SplitMix64) -> Int, skippingUnread: Bool = false, skippingAudio: Bool = false) -> Outcome {
        let stream = self.stream
        var parser = AudioStreamParser(hints: AudioStreamHints(totalByteCount: Int64(stream.count)))
        var sink = CheckingSink(stream: stream)
        var jumps = 0
        let result = stream.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                try parser.parse(wholeStream: raw, chunkSize: { chunkSizes(&random) }, into: &sink) { parser, end in
                    checkHeld(parser)
                    if skippingUnread, parser.skipRemaining > 0 { parser.skipUnread() }
                    if skippingAudio { parser.skipAudioCountedBySize() }
                    // Only an MP4 sends the parser elsewhere than the next byte (back to its audio
                    // after its index, a bounded number of times).
                    if parser.nextByteOffset < Int64(end) {
                        jumps += 1
                        require(jumps <= MP4Parser.maximumBackwardJumps + 1, "the parser jumped back \(jumps) times")
                    }
                    return true
                }
            }
        }
        Self.check(parser.properties, streamLength: stream.count)
        return Outcome(
            events: sink.events, error: result.failure, final: parser.properties,
            seekTable: parser.seekTable)
    }

    /// Feeds the stream up to a random point, jumps to another random offset, and feeds from
    /// there to the end: packets after the jump must lie in the bytes fed after it.
    mutating func parseAcrossDiscontinuity() {
        let cut = Int(random.next() % UInt64(stream.count + 1))
        let target = Int(random.next() % UInt64(stream.count + 1))
        let stream = self.stream
        var parser = AudioStreamParser()
        var sink = CheckingSink(stream: stream)
        let result = stream.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                try parser.parse(UnsafeRawBufferPointer(rebasing: raw[..<cut]), into: &sink)
                parser.discontinuity(at: Int64(target))
                sink.restart(at: target)
                var start = target
                while start < raw.count {
                    let end = min(start + Int.random(in: 1...1024, using: &random), raw.count)
                    try parser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<end]), into: &sink)
                    checkHeld(parser)
                    start = parser.nextByteOffset < Int64(end) ? raw.count : end
                }
                try parser.finish(into: &sink)
            }
        }
        if result.failure == nil { Self.check(parser.properties, streamLength: stream.count) }
        checkQueries(parser.seekTable, packets: [:])
    }

    /// A stream that starts with the signature of a container the parser cannot play yet is
    /// refused by that container's name, before any packet (whatever frames may follow).
    func checkRefusal(_ run: Outcome) {
        guard case .found(let name) = stream.withUnsafeBytes({ UnsupportedContainer.match($0, isFinal: true) }) else { return }
        let packets = run.events.filter { if case .packet = $0 { true } else { false } }.count
        require(
            run.error?.code == .unsupportedFormat && run.error?.message.hasPrefix(name) == true && packets == 0,
            "a stream starting as \(name) was not refused at once: \(String(describing: run.error)), \(packets) packets")
    }

    /// Queries the seek table of a whole-stream run at extreme and ordinary times and offsets.
    /// The side information the MP3 decoder reads to tell an undecodable frame, of every packet
    /// that starts with a Layer III header: read within the packet, its counts in range.
    func checkLayerIIISideInfo(_ run: Outcome) {
        for event in run.events {
            guard case .packet(let packet) = event else { continue }
            let bytes = Array(stream[Int(packet.offset)..<Int(packet.offset) + packet.size])
            bytes.withUnsafeBytes { raw in
                guard let header = MPEGFrameHeader(raw), let side = LayerIIISideInfo(raw, header: header) else { return }
                require(side.mainDataBegin >= 0 && side.mainDataBegin < 512, "main_data_begin \(side.mainDataBegin)")
                require(side.mainDataBits >= 0, "main data of \(side.mainDataBits) bits")
                require(side.ownMainDataBytes >= 0 && side.ownMainDataBytes <= raw.count, "\(side.ownMainDataBytes) bytes of its own")
            }
        }
    }

    func checkSeekTable(_ run: Outcome) {
        var startFrames: [Int64: Int64] = [:]
        for case .packet(let packet) in run.events {
            if let frame = packet.startFrame { startFrames[packet.offset] = frame }
        }
        checkQueries(run.seekTable, packets: startFrames)
    }

    /// Every answer is a real place in the stream; exact answers from the frame index name a
    /// packet that was emitted there (`packets`: start frame by offset; empty after a jump).
    func checkQueries(_ table: AudioSeekTable, packets: [Int64: Int64]) {
        let length = Double(stream.count)
        let times = [-1, 0, 0.01, 1, 10, length / 1000, 3600, 1e9, 1e15, .greatestFiniteMagnitude, .infinity, .nan]
        let offsets: [Int64] = [.min, -1, 0, 1, Int64(stream.count / 2), Int64(stream.count), 1 << 40, .max]
        let points = times.map { table.offset(forTime: $0) } + offsets.map { table.time(forOffset: $0) }
        for case let point? in points {
            require(
                point.time.isFinite && point.time >= 0 && point.frame >= 0 && point.offset >= 0,
                "seek point out of range: \(point)")
            if point.method == .frameIndex, !packets.isEmpty {
                require(packets[point.offset] == point.frame, "frame index point \(point) names no packet")
            }
        }
    }

    /// The summary `AudioInfo` gives, from the whole stream and from its head alone.
    mutating func summarise() {
        let tail = Array(stream.suffix(Int(random.next() % 4096)))
        _ = AudioStreamInfo.trailingTagLength(in: tail)
        let hints = AudioStreamHints(contentType: "audio/mpeg", totalByteCount: Int64(stream.count))
        let headLength = Int(random.next() % UInt64(stream.count + 1))
        for head in [stream, Array(stream[..<headLength])] {
            guard let info = try? AudioStreamInfo.scan(head: head, tail: tail, hints: hints) else { continue }
            require((try? JSONEncoder().encode(info)) != nil, "the summary did not encode as JSON")
        }
    }

    /// The bytes held, and those a step asks for, stay within one packet or tag field.
    func checkHeld(_ parser: AudioStreamParser) {
        require(
            parser.heldCount <= Self.maximumHeld && parser.needed <= Self.maximumHeld,
            "the parser holds \(parser.heldCount) bytes and asks for \(parser.needed)")
    }

    /// Figures that must make sense whatever the bytes.
    static func check(_ properties: AudioStreamProperties, streamLength: Int) {
        if let duration = properties.duration { require(duration.isFinite && duration >= 0, "duration \(duration)") }
        if let rate = properties.bitRate?.bitsPerSecond { require(rate.isFinite && rate >= 0, "bit rate \(rate)") }
        if let offset = properties.dataOffset {
            require(offset >= 0 && offset < Int64(streamLength), "data offset \(offset)")
        }
        require(
            (properties.packetCount ?? 0) >= 0 && (properties.audioDataByteCount ?? 0) >= 0
                && (properties.trimmedFrameCount ?? 0) >= 0 && properties.junkByteCount >= 0,
            "negative totals: \(properties)")
    }
}

/// What one run of the parser produced.
struct Outcome: Equatable {
    var events: [AudioStreamEvent]
    var error: AudioParserError?
    var final: AudioStreamProperties
    var seekTable: AudioSeekTable

    /// Where this run first differs from `other`, for the crash message.
    func firstDifference(from other: Outcome) -> String {
        for (i, (a, b)) in zip(events, other.events).enumerated() where a != b {
            return "event \(i): \(a) vs \(b)"
        }
        if events.count != other.events.count { return "\(events.count) events vs \(other.events.count)" }
        if error != other.error { return "error \(String(describing: error)) vs \(String(describing: other.error))" }
        return final != other.final ? "final properties \(final) vs \(other.final)" : "seek tables differ"
    }
}

/// A sink that checks each packet against the stream it was cut from: in order, not
/// overlapping, inside the stream, and holding exactly the stream's bytes at its offset.
struct CheckingSink: AudioStreamSink {
    let stream: [UInt8]
    var events: [AudioStreamEvent] = []
    /// Where the previous packet ended (or where the bytes restarted after a jump).
    var end: Int64 = 0
    /// The format of the packets now coming.
    var format: AudioFormat?

    init(stream: [UInt8]) {
        self.stream = stream
    }

    /// The next bytes come from `offset`.
    mutating func restart(at offset: Int) {
        end = Int64(offset)
    }

    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        format = properties.format
        events.append(.propertiesChanged(properties))
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        let start = Int(packet.offset)
        require(packet.offset >= end, "packet \(packet) starts before the end of the last one (\(end))")
        require(
            packet.size > 0 && bytes.count == packet.size && start + packet.size <= stream.count,
            "packet \(packet) of \(bytes.count) bytes outside a \(stream.count)-byte stream")
        // An Ogg packet is gathered from the pages it spans: its bytes lie in the stream with
        // page headers between them. Its frames are 0 where gapless trimming drops them all.
        let isOgg = [.vorbis, .opus, .flac].contains(format?.codec)
        require(isOgg || bytes.elementsEqual(stream[start..<start + packet.size]), "packet \(packet) bytes differ")
        require(
            (isOgg ? packet.frameCount >= 0 : packet.frameCount > 0) && (packet.startFrame ?? 0) >= 0 && (packet.startTime ?? 0) >= 0,
            "packet \(packet) has impossible frames")
        end = packet.offset + Int64(packet.size)
        events.append(.packet(packet))
    }
}
