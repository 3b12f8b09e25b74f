/// The incremental audio stream parser (this project's AudioFileStream): bytes go in as they
/// arrive, in chunks of any size; out come properties as soon as they are known and complete
/// packets. Any split of the same bytes gives the same output. Memory is bounded: at most one
/// incomplete packet (plus the next header, to confirm a sync) is held; tags are read as they
/// pass and skipped, never held whole.
///
///     var parser = AudioStreamParser(hints: .init(contentType: "audio/mpeg"))
///     try parser.parse(chunk, into: &sink)    // for every chunk, as it arrives
///     try parser.finish(into: &sink)          // at the end of the stream
///
/// Formats: MPEG audio (Layers I-III, MPEG-1/2/2.5, with ID3v2, ID3v1, APE, Lyrics3, Xing/Info,
/// LAME and VBRI), AAC in ADTS, PCM WAV (RIFF/RIFX), AAC in MP4 (M4A, M4B, fragmented MP4), native
/// FLAC, PCM AIFF/AIFF-C, CAF (PCM and AAC), and Ogg (Vorbis, Opus, FLAC; chained).
///
/// The next bytes must come from `nextByteOffset`: it moves by itself when an MP4's index or a
/// CAF's packet table comes after its audio (forward over the audio when `prefersJump` and
/// `skipUnread()` are used, then back to the audio once the index is read); a reader that cannot
/// go back fails.
public struct AudioStreamParser: Sendable {
    package enum Stage: Sendable {
        case sniffing(FormatSniffer)
        case mpeg(MPEGAudioParser)
        case adts(ADTSParser)
        case wav(WAVParser)
        case mp4(MP4Parser)
        case flac(FLACParser)
        case aiff(AIFFParser)
        case caf(CAFParser)
        case ogg(OggParser)
        /// A parse error was thrown; everything more is ignored.
        case failed(AudioParserError)
    }

    package var stage = Stage.sniffing(FormatSniffer())
    package var state: StreamState
    /// A tag being read, between packets.
    package var tagReader: TagReader?
    /// Bytes still to drop before parsing resumes.
    package var skipRemaining: Int64 = 0
    /// Bytes held because the window was too short; `pending[pendingStart...]` is live.
    package var pending: [UInt8] = []
    package var pendingStart = 0
    /// Bytes the window must hold before the next step.
    package var needed = 1
    /// Stream offset of the window's first byte.
    package var position: Int64 = 0
    /// Where a step asked the parser to go on (`ParseStep.jump`), until the run carries it out.
    package var jumpTarget: Int64?

    /// Creates a parser for a stream starting at byte 0.
    public init(hints: AudioStreamHints = AudioStreamHints()) {
        state = StreamState(hints: hints)
    }

    /// Everything known about the stream so far; the running-mean bit rate and estimates are
    /// worked out afresh on each read.
    public var properties: AudioStreamProperties { state.snapshot() }

    /// The seek table for the stream so far.
    public var seekTable: AudioSeekTable { state.seekTable }

    /// Stream offset of the next byte the parser expects: usually the one after those fed, but
    /// an MP4 whose index follows its audio (or a CAF whose packet table does) moves it back to
    /// the audio once the index is read.
    public var nextByteOffset: Int64 { position + Int64(heldCount) }

    /// Whether the bytes the parser is skipping are better jumped over (`skipUnread()`) than
    /// read, by a reader that can seek: an MP4's audio that comes before its index (a CAF's
    /// before its packet table), to be read again once the index is known.
    public var prefersJump: Bool {
        guard skipRemaining > 0 else { return false }
        switch stage {
        case .mp4(let parser): return parser.prefersJump
        case .caf(let parser): return parser.prefersJump
        default: return false
        }
    }

    /// Parses the next bytes of the stream, telling `sink` of property changes and packets.
    /// Throws when the format cannot be recognised or is not supported; after that, every call
    /// throws the same error.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer, into sink: inout some AudioStreamSink) throws(AudioParserError) {
        try run(bytes, isFinal: false, sink: &sink)
    }

    /// Ends the stream: emits a last packet that was waiting for the bytes after it, and sets
    /// the counted totals.
    public mutating func finish(into sink: inout some AudioStreamSink) throws(AudioParserError) {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), isFinal: true, sink: &sink)
        if case .sniffing(let sniffer) = stage { throw fail(sniffer.failure(state.hints)) }
        if case .mp4(let parser) = stage, let error = parser.failureAtEnd(position) { throw fail(error) }
        if case .caf(let parser) = stage, let error = parser.failureAtEnd() { throw fail(error) }
        state.isFinished = true
        sink.audioStream(propertiesChanged: state.snapshot())
    }

    /// Records `error` as the parser's end and returns it.
    package mutating func fail(_ error: AudioParserError) -> AudioParserError {
        stage = .failed(error)
        return error
    }

    /// Parses `bytes` and returns what was found (without the packets' contents).
    public mutating func parse(_ bytes: [UInt8]) throws(AudioParserError) -> [AudioStreamEvent] {
        var collector = AudioStreamEventCollector()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in try parse(raw, into: &collector) }
        }
        try result.get()
        return collector.events
    }

    /// Ends the stream and returns what was found.
    public mutating func finish() throws(AudioParserError) -> [AudioStreamEvent] {
        var collector = AudioStreamEventCollector()
        try finish(into: &collector)
        return collector.events
    }

    /// Whether the packets state their own times after a discontinuity (a fragmented MP4 whose
    /// fragments give their decode times), whatever the parser was told.
    package var datesPackets: Bool {
        guard case .mp4(let parser) = stage else { return false }
        return parser.hasDecodeTimes
    }

    /// Whether the parser has found the audio but has more to read before its first packet
    /// (an MP4 chapter track's titles): a reader after the properties reads on.
    package var awaitsProperties: Bool {
        guard case .mp4(let parser) = stage else { return false }
        return parser.awaitsChapters
    }

    /// The stream's size in bytes, learnt from a response after the parser was made: the seek
    /// table's estimates use it as they use `hints.totalByteCount`.
    package mutating func learnStreamSize(_ size: Int64) {
        state.seekTable.streamSize = size
    }

    /// Tells the parser the stream's duration as its source knows it (`AudioStreamHints.duration`).
    package mutating func learnStreamDuration(_ seconds: Double) {
        state.hints.duration = seconds
    }

    /// Tells the parser the next bytes come from `offset` (after a seek): held bytes are
    /// dropped and the parser resynchronises. Packet times continue exactly where the seek
    /// table knows the first packet found after `offset` (by that packet's own offset, not by
    /// `offset`, which may fall inside a packet), and are `nil` otherwise.
    public mutating func discontinuity(at offset: Int64) {
        if offset != nextByteOffset { state.isContinuous = false }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        skipRemaining = 0
        needed = 1
        tagReader = nil
        position = offset
        state.nextFrame = nil
        switch stage {
        case .mpeg(var parser):
            parser.resynchronise()
            stage = .mpeg(parser)
        case .adts(var parser):
            parser.resynchronise()
            stage = .adts(parser)
        case .wav(var parser):
            skipRemaining = parser.resynchronise(at: offset)
            stage = .wav(parser)
        case .mp4(var parser):
            parser.resynchronise(at: offset)
            stage = .mp4(parser)
        case .flac(var parser):
            parser.resynchronise(at: offset)
            stage = .flac(parser)
        case .aiff(var parser):
            skipRemaining = parser.resynchronise(at: offset)
            stage = .aiff(parser)
        case .caf(var parser):
            skipRemaining = parser.resynchronise(at: offset)
            stage = .caf(parser)
        case .ogg(var parser):
            parser.resynchronise(at: offset)
            stage = .ogg(parser)
        case .sniffing, .failed:
            break
        }
    }

    /// Tells the parser that the next packet starts `seconds` from the stream's start (a source
    /// that knows the time of what it sends: an HLS segment's timestamp, or the live end of an
    /// HLS EVENT playlist joined late), placed there once the sample rate is known. A format
    /// whose packets state their own times (fragmented MP4's decode times) goes by those.
    package mutating func placeNextPacket(atSeconds seconds: Double) {
        state.nextStartSeconds = seconds
    }
}
