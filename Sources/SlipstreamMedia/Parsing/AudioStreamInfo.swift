/// A summary of an audio stream for people and scripts (`slipstream info`): format, bit rate,
/// duration and how it was found, tags, gapless figures. Made from the bytes of the stream's
/// head (the whole file, ideally), plus optionally its last bytes for trailing tags; pure.
public struct AudioStreamInfo: Hashable, Sendable, Codable {
    /// The coding of the audio.
    public var format: AudioFormat
    /// The bit rate and how it was found.
    public var bitRate: AudioStreamProperties.BitRate?
    /// Duration in seconds after gapless trimming.
    public var duration: Double?
    /// Where `duration` came from: the header, a count of every packet, or an estimate.
    public var durationSource: AudioStreamProperties.Source?
    /// Packets in the stream (the Xing/VBRI frame excluded).
    public var packetCount: Int64?
    /// Where `packetCount` and `audioDataByteCount` came from.
    public var totalsSource: AudioStreamProperties.Source?
    /// Byte offset of the first audio packet.
    public var dataOffset: Int64?
    /// Bytes of audio packets in the stream.
    public var audioDataByteCount: Int64?
    /// Frames the encoder added at the start (LAME tag).
    public var encoderDelay: Int?
    /// Frames the encoder added at the end (LAME tag).
    public var encoderPadding: Int?
    /// Frames (samples per channel) after gapless trimming.
    public var trimmedFrameCount: Int64?
    /// Title, artist, album, and the kinds of tag found.
    public var tags: AudioTags
    /// Whether a player can seek by time (given a seekable source).
    public var isSeekableByTime: Bool
    /// Total bytes of the stream, when known.
    public var totalByteCount: Int64?
    /// The chapters, in order (an MP4's Nero `chpl` or QuickTime chapter track); `nil` when
    /// there are none.
    public var chapters: [AudioChapter]?

    /// Summarises parsed properties.
    public init(properties: AudioStreamProperties, format: AudioFormat, totalByteCount: Int64?) {
        self.format = format
        bitRate = properties.bitRate
        duration = properties.duration
        durationSource = properties.durationSource
        packetCount = properties.packetCount
        totalsSource = properties.totalsSource
        dataOffset = properties.dataOffset
        audioDataByteCount = properties.audioDataByteCount
        encoderDelay = properties.encoderDelay
        encoderPadding = properties.encoderPadding
        trimmedFrameCount = properties.trimmedFrameCount
        tags = properties.tags
        isSeekableByTime = properties.isSeekableByTime
        self.totalByteCount = totalByteCount
        chapters = properties.chapters.isEmpty ? nil : properties.chapters
    }

    /// Parses `head` (the stream's first bytes; the whole stream when its length equals
    /// `hints.totalByteCount`, which makes every total an exact count) and `tail` (the stream's
    /// last bytes, for ID3v1/APE/Lyrics3 tags; `nil` when not fetched).
    public static func scan(head: [UInt8], tail: [UInt8]? = nil, hints: AudioStreamHints) throws(AudioParserError) -> AudioStreamInfo {
        var parser = AudioStreamParser(hints: hints)
        _ = try parser.parse(head)
        if let total = hints.totalByteCount, Int64(head.count) >= total { _ = try parser.finish() }
        return try AudioStreamInfo(parser: parser, tail: tail)
    }

    /// Summarises what `parser` has found so far (fed from the stream's start, perhaps with
    /// skipped bytes left unread: see `AudioStreamParser.skipUnread()`), with the tags in `tail`
    /// (the stream's last bytes, for ID3v1/APE/Lyrics3; `nil` when not read). Throws
    /// `unrecognisedFormat`, naming what the bytes look like, when no format has been found.
    public init(parser: AudioStreamParser, tail: [UInt8]? = nil) throws(AudioParserError) {
        try self.init(parser: parser, tail: tail, isLive: false)
    }

    /// The same, for a live stream when `isLive`: without totals (see
    /// `AudioStreamProperties.forgetTotals()`), not seekable.
    package init(parser: AudioStreamParser, tail: [UInt8]?, isLive: Bool) throws(AudioParserError) {
        var properties = parser.properties
        if isLive {
            properties.forgetTotals()
            properties.isSeekableByTime = false
        }
        guard let format = properties.format else {
            if case .sniffing(let sniffer) = parser.stage { throw sniffer.failure(parser.state.hints) }
            throw AudioParserError(
                code: .unrecognisedFormat,
                message: "no audio packet in the first \(parser.nextByteOffset) bytes")
        }
        self.init(properties: properties, format: format, totalByteCount: parser.state.hints.totalByteCount)
        if let tail { tags.merge(tail.withUnsafeBytes { TrailingTags.read($0) }) }
        if let tail, durationSource != .counted, case .ogg(let ogg) = parser.stage,
            let frames = tail.withUnsafeBytes({ ogg.framesAtEnd(ofTail: $0) })
        {
            // Ogg states its length in its last page's granule position.
            (trimmedFrameCount, duration, durationSource) = (frames, Double(frames) / Double(format.sampleRate), .header)
        }
    }

    /// How many of a stream's last bytes its trailing tags (ID3v1, Lyrics3v2, APE) take, as
    /// the footers in `tail` (the stream's last bytes) declare: 0 when there are none, more
    /// than `tail.count` when a tag starts, or may start, before `tail`. A reader that gets a larger figure
    /// than it fetched fetches that many last bytes and asks again.
    public static func trailingTagLength(in tail: [UInt8]) -> Int {
        tail.withUnsafeBytes { TrailingTags.length($0) }
    }
}
