/// Reads as little of a source as describing its audio needs (`AudioInfo.read(from:)`): the head
/// in chunks, only until the parser has found the first audio packet, jumping over what the
/// parser would only skip where the source can seek; then the last bytes, for the tags that
/// trail the audio. Keeps the summary of what was read.
struct AudioInfoReader {
    /// The size of each read of the head, in bytes (for a source that cannot seek, reads grow
    /// by doubling, each from the start).
    static let chunkSize = 256 << 10
    /// The size of each read after the first when every packet is to be counted, in bytes:
    /// each read is a connection with its hand-offs between threads, and with 1 MiB reads
    /// those took a fifth of the time `info --exact` took over a 280 MB FLAC file (120 ms, 95
    /// with 4 MiB reads).
    static let exactChunkSize = 4 << 20
    /// Bytes read for the head at most before giving up on finding audio.
    static let maximumHeadBytes: Int64 = 32 << 20
    /// The last bytes read first for trailing tags; more only when their footers ask for it.
    static let initialTailSize = 4096
    /// Bytes read for trailing tags at most.
    static let maximumTailSize = 1 << 20
    /// How long a live stream is read: enough for its format and bit rate, and for the
    /// station's first title (radio stations send one every 8 to 32 KiB of audio).
    static let liveRead = LiveReadLimit(bytes: 40 << 10, seconds: 4)

    let source: any AudioSource
    /// The URL or file as given (its extension is a hint to the parser).
    let name: String
    /// What the reads so far found.
    private(set) var summary: AudioInfo.Source
    /// The last read's bytes, handed back to the next read to fill (no allocation per read).
    private var spare: [UInt8] = []

    init(source: any AudioSource, name: String) {
        self.source = source
        self.name = name
        summary = AudioInfo.Source(source.location)
    }

    /// Whether any offset can be read without reading the bytes before it: a file, or a server
    /// that answered a range (unknown before the first read counts as no).
    var canSeek: Bool { source.location.path != nil || summary.acceptsRanges == true }

    /// Describes the audio, or reads the playlist the source turns out to be; with `exact`,
    /// reads the whole stream so that every total is an exact count.
    mutating func describe(exact: Bool) async throws(AudioInfoError) -> AudioInfo.Found {
        var parser: AudioStreamParser?
        var offset: Int64 = 0
        var hasWholeStream = false
        while true {
            // The first read is a head's, also when every packet is to be counted: a format
            // counted by its sizes (PCM, MP4) is told by its head, and its audio is jumped over.
            let count = canSeek ? (exact && parser != nil ? Self.exactChunkSize : Self.chunkSize) : max(Self.chunkSize, Int(offset))
            // The first read ends at once when its first bytes are refused (a live stream may
            // never send a whole chunk).
            let probe = parser == nil ? RefusalProbe() : nil
            let bytes = try await read(at: offset, count: count, endsEarly: probe?.refuses)
            if parser == nil, let playlist = try await playlist(startingWith: bytes, isWhole: bytes.count < count) {
                return .playlist(playlist)
            }
            var current =
                parser
                ?? AudioStreamParser(
                    hints: AudioStreamHints(
                        contentType: summary.contentType, fileExtension: AudioLocation.fileExtension(of: name), totalByteCount: summary.size
                    ))
            // A live stream has no whole: what was read is all there is to read.
            hasWholeStream = bytes.count < count && !summary.isLive
            let canSeek = canSeek, size = summary.size
            try audio { () throws(AudioParserError) in
                // The parser's findings are read from its properties: its sink keeps nothing.
                var sink = DiscardingSink()
                let parsed = bytes.withUnsafeBytes { raw in
                    Result { () throws(AudioParserError) in try current.parse(raw, into: &sink) }
                }
                try parsed.get()
                spare = bytes
                if canSeek { current.skipUnread() }
                // Uncompressed audio and MP4 samples are counted from their sizes: their bytes
                // tell nothing more.
                if canSeek, exact { current.skipAudioCountedBySize() }
                // An MP4 whose index follows its audio sends the parser back to the audio.
                if current.nextByteOffset < offset + Int64(bytes.count) { hasWholeStream = false }
                offset = current.nextByteOffset
                if let size, offset >= size { hasWholeStream = true }
                if hasWholeStream { try current.finish(into: &sink) }
            }
            parser = current
            if hasWholeStream || summary.isLive { break }
            let isFound = current.properties.dataOffset != nil && !current.awaitsProperties
            if !exact, isFound || summary.bytesRead >= Self.maximumHeadBytes { break }
        }
        let described = parser!
        // MP4 has no trailing tags (its own are in its index).
        let tail = hasWholeStream || described.properties.format?.codec == .aacRaw ? nil : try await readTail()
        let info = try audio { () throws(AudioParserError) in try AudioStreamInfo(parser: described, tail: tail, isLive: summary.isLive) }
        return .audio(AudioInfo(source: summary, audio: info))
    }

    /// The last bytes of a source that can seek and whose size is known, as many as the
    /// trailing tags take (up to `maximumTailSize`); `nil` otherwise.
    private mutating func readTail() async throws(AudioInfoError) -> [UInt8]? {
        guard canSeek, let size = summary.size, size > 0 else { return nil }
        var count = Int(min(Int64(Self.initialTailSize), size))
        while true {
            let tail = try await read(at: size - Int64(count), count: count)
            let needed = AudioStreamInfo.trailingTagLength(in: tail)
            guard needed > count, needed <= Self.maximumTailSize, Int64(needed) <= size else { return tail }
            count = needed
        }
    }

    /// Reads `count` bytes at `offset` (fewer only at the end, or when `endsEarly` ends the read:
    /// see `AudioSource.read`): a range where the source answers ranges, else the first
    /// `offset + count` bytes; notes what the answer said.
    mutating func read(
        at offset: Int64, count: Int, endsEarly: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil
    ) async throws(AudioInfoError) -> [UInt8] {
        let ranged = summary.acceptsRanges != false
        let request =
            ranged
            ? AudioSourceRequest(offset: offset, length: Int64(count))
            : AudioSourceRequest(offset: 0, length: offset + Int64(count))
        let read: AudioSourceRead
        do throws(AudioStreamerError) {
            // Once the server has answered ranges, a whole file instead is an error: no need to
            // read it.
            let buffer = spare
            spare = []
            read = try await source.read(
                request, fromStartIfNeeded: summary.acceptsRanges != true, live: Self.liveRead, reusing: consume buffer,
                endsEarly: endsEarly)
        } catch {
            throw AudioInfoError(error)
        }
        summary.requests += 1
        summary.bytesRead += read.bytesReceived
        let answer = read.answer
        if summary.requests == 1 {
            summary.contentType = answer.contentType
            summary.effectiveURL = answer.effectiveURL
            summary.isLive = answer.isLive
        }
        for metadata in read.metadata {
            switch metadata {
            case .station(let station): summary.station = station
            case .title(let title, _): summary.title = title
            }
        }
        if source.location.url != nil {
            if answer.rangesSupported == true {
                summary.acceptsRanges = true
            } else if summary.acceptsRanges == true {
                let url = source.location.text
                throw AudioInfoError(
                    .rangeNotHonoured,
                    "\(url): asked for bytes \(offset)-\(offset + Int64(count) - 1) but the server "
                        + "sent the whole file, after answering earlier ranges", url: url, offset: offset)
            } else {
                summary.acceptsRanges = false
            }
        }
        summary.size = answer.rangesSupported == true ? answer.totalSize ?? summary.size : answer.totalSize
        return ranged ? read.bytes : Array(read.bytes.dropFirst(Int(offset)))
    }

    /// Runs `body`, turning a parser error into the "not audio" failure naming the source.
    private func audio<T>(_ body: () throws(AudioParserError) -> T) throws(AudioInfoError) -> T {
        do {
            return try body()
        } catch {
            let location = source.location
            throw AudioInfoError(
                .notAudio, "\(name): \(error)", url: location.url, path: location.path, offset: error.offset,
                underlying: error)
        }
    }
}

/// A parser sink that keeps nothing (what a summary needs is in the parser's properties).
struct DiscardingSink: AudioStreamSink {
    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {}
    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {}
}
