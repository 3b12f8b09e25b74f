extension AudioStreamParser {
    /// Parses a whole stream held in memory, as a reader of it would: in chunks of the sizes
    /// `chunkSize` gives (at least 1), each from where the parser wants its next bytes
    /// (`nextByteOffset`: an MP4 goes back to its audio after its index), then finishes.
    /// `afterEach` runs after each chunk with the chunk's end, to look at the parser (what it
    /// holds) or to jump (`skipUnread()`, `skipAudioCountedBySize()`); it returns false to stop
    /// feeding. The tests' and fuzzers' one way to feed a stream.
    package mutating func parse(
        wholeStream stream: UnsafeRawBufferPointer, chunkSize: () -> Int, into sink: inout some AudioStreamSink,
        afterEach: (inout AudioStreamParser, _ end: Int) -> Bool = { _, _ in true }
    ) throws(AudioParserError) {
        var start = 0
        while start < stream.count {
            let end = min(start + max(chunkSize(), 1), stream.count)
            try parse(UnsafeRawBufferPointer(rebasing: stream[start..<end]), into: &sink)
            guard afterEach(&self, end) else { break }
            start = Int(min(max(nextByteOffset, 0), Int64(stream.count)))
        }
        try finish(into: &sink)
    }
}
