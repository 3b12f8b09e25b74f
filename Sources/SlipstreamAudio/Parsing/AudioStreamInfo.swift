import FoundationEssentials

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
        let properties = parser.properties
        guard let format = properties.format else {
            if case .sniffing(let sniffer) = parser.stage { throw sniffer.failure(parser.state.hints) }
            throw AudioParserError(code: .unrecognisedFormat,
                                   message: "no audio packet in the first \(parser.nextByteOffset) bytes")
        }
        self.init(properties: properties, format: format, totalByteCount: parser.state.hints.totalByteCount)
        if let tail { tags.merge(tail.withUnsafeBytes { TrailingTags.read($0) }) }
    }

    /// How many of a stream's last bytes its trailing tags (ID3v1, Lyrics3v2, APE) take, as
    /// the footers in `tail` (the stream's last bytes) declare: 0 when there are none, more
    /// than `tail.count` when a tag starts, or may start, before `tail`. A reader that gets a larger figure
    /// than it fetched fetches that many last bytes and asks again.
    public static func trailingTagLength(in tail: [UInt8]) -> Int {
        tail.withUnsafeBytes { TrailingTags.length($0) }
    }

    /// The summary as `Label: value` lines, for a terminal.
    public var textLines: [String] { Self.alignedLines(textFields) }

    /// The summary as labelled values, in the order of `textLines`, for a caller that adds
    /// fields of its own before aligning them with `alignedLines(_:)`.
    public var textFields: [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        let channels = format.channels == 1 ? "mono" : format.channels == 2 ? "stereo" : "\(format.channels) channels"
        lines.append(("Format", "\(format.codecDescription), \(format.sampleRate) Hz, \(channels)"))
        if let bitRate {
            let mode = bitRate.mode == .constant ? "CBR" : "VBR"
            let source = switch bitRate.source {
            case .frameHeader: "frame header"
            case .vbrHeader: "VBR header"
            case .runningMean: "mean of the packets read"
            }
            lines.append(("Bit rate", "\(Self.decimal(bitRate.bitsPerSecond / 1000, places: 1)) kbit/s \(mode) (\(source))"))
        }
        if let duration, let durationSource {
            let how = durationSource == .header ? "from the header" : durationSource == .counted ? "exact count" : "estimate"
            lines.append(("Duration", "\(Self.clock(duration)) (\(Self.decimal(duration, places: 3)) s, \(how))"))
        }
        if let packetCount { lines.append(("Packets", "\(packetCount)")) }
        if let dataOffset {
            lines.append(("Audio data", audioDataByteCount.map { "\($0) bytes from byte \(dataOffset)" } ?? "from byte \(dataOffset)"))
        }
        if encoderDelay != nil || encoderPadding != nil {
            lines.append(("Gapless", "encoder delay \(encoderDelay ?? 0), padding \(encoderPadding ?? 0) frames"))
        }
        if let title = tags.title { lines.append(("Title", title)) }
        if let artist = tags.artist { lines.append(("Artist", artist)) }
        if let album = tags.album { lines.append(("Album", album)) }
        if !tags.kinds.isEmpty { lines.append(("Tags", tags.kinds.map(\.rawValue).joined(separator: ", "))) }
        lines.append(("Seekable", isSeekableByTime ? "by time" : "by byte offset only"))
        return lines
    }

    /// `Label: value` lines with the values lined up in one column.
    public static func alignedLines(_ fields: [(label: String, value: String)]) -> [String] {
        let width = fields.map(\.label.count).max() ?? 0
        return fields.map { $0.label + ":" + String(repeating: " ", count: width - $0.label.count + 1) + $0.value }
    }

    /// The summary as pretty-printed JSON with sorted keys (absent values left out).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// `value` with `places` decimals, without Foundation's locale.
    private static func decimal(_ value: Double, places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { result, _ in result * 10 }
        let scaled = Int64((value * scale).rounded())
        let fraction = String(scaled % Int64(scale))
        return "\(scaled / Int64(scale))." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `seconds` as h:mm:ss or m:ss.
    private static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
