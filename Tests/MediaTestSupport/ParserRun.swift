@testable import SlipstreamMedia

/// Everything a parser emitted for a stream, with a checksum of each packet's bytes so runs can
/// be compared exactly.
package struct ParserRun: Equatable {
    package var events: [AudioStreamEvent] = []
    package var packetChecksums: [UInt64] = []
    package var error: AudioParserError?
    package var final = AudioStreamProperties()
    package var seekTable = AudioSeekTable()
    /// The most bytes the parser held at once.
    package var maximumHeld = 0

    package var packets: [AudioPacket] {
        events.compactMap { if case .packet(let packet) = $0 { packet } else { nil } }
    }

    /// Times the parser asked for bytes other than the next ones, and the bytes fed.
    package var jumpCount = 0
    package var bytesFed = 0

    /// Parses `bytes` fed in chunks of the sizes `chunkSizes` yields (cycled), from where the
    /// parser wants them (jumping over what it prefers not to read when `jumps`), then finishes.
    package init(_ bytes: [UInt8], hints: AudioStreamHints = .init(), jumps: Bool = false, chunkSizes: () -> Int) {
        var parser = AudioStreamParser(hints: hints)
        var sink = Sink()
        var held = 0
        var jumpCount = 0
        var bytesFed = 0
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                var start = 0
                try parser.parse(wholeStream: raw, chunkSize: chunkSizes, into: &sink) { parser, end in
                    held = max(held, parser.heldCount)
                    bytesFed += end - start
                    // Bytes come from where the parser wants them (an MP4 jumps back to its audio).
                    if jumps, parser.prefersJump { parser.skipUnread() }
                    if parser.nextByteOffset != Int64(end) { jumpCount += 1 }
                    start = Int(min(max(parser.nextByteOffset, 0), Int64(raw.count)))
                    return jumpCount <= 1000
                }
            }
        }
        if case .failure(let error) = result { self.error = error }
        maximumHeld = held
        self.jumpCount = jumpCount
        self.bytesFed = bytesFed
        events = sink.events
        packetChecksums = sink.checksums
        final = parser.properties
        seekTable = parser.seekTable
    }

    package static func == (lhs: ParserRun, rhs: ParserRun) -> Bool {
        lhs.events == rhs.events && lhs.packetChecksums == rhs.packetChecksums && lhs.error == rhs.error
            && lhs.final == rhs.final && lhs.seekTable == rhs.seekTable
    }

    /// A short account of where this run first differs from `other`.
    package func firstDifference(from other: ParserRun) -> String {
        if let i = zip(events, other.events).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            return "event \(i): \(events[i]) vs \(other.events[i])"
        }
        if events.count != other.events.count { return "\(events.count) events vs \(other.events.count)" }
        if packetChecksums != other.packetChecksums { return "packet contents differ" }
        if error != other.error { return "error \(String(describing: error)) vs \(String(describing: other.error))" }
        return final != other.final ? "final properties differ" : "seek tables differ"
    }

    private struct Sink: AudioStreamSink {
        package var events: [AudioStreamEvent] = []
        package var checksums: [UInt64] = []

        package mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
            events.append(.propertiesChanged(properties))
        }

        package mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
            events.append(.packet(packet))
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            checksums.append(hash)
        }
    }
}

/// A small seeded generator (SplitMix64), so random splits are the same on every run.
package struct SeededRandom: RandomNumberGenerator {
    package init(state: UInt64) {
        self.state = state
    }

    package var state: UInt64

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
