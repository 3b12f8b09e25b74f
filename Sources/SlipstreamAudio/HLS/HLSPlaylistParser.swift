/// Reads HLS playlists (RFC 8216), master and media. Pure and bounded: a body over
/// `maximumSize` is refused, segments past `maximumSegments` are dropped, and unknown tags,
/// attributes and comments are ignored as the RFC asks of a client. Lines are split and decoded
/// as for other playlists (`PlaylistText`); an unreadable line drops the segment it belonged to.
enum HLSPlaylistParser {
    /// The largest playlist read: a day of two-second segments takes about 3 MiB.
    static let maximumSize = 8 << 20
    /// The most segments kept (the first ones).
    static let maximumSegments = 65_536
    /// The most variants and renditions kept, each.
    static let maximumVariants = 1000

    /// The playlist in `bytes`. Throws `.tooLarge`, or `.malformed` for one that is neither a
    /// master nor a media playlist.
    static func parse(_ bytes: [UInt8]) throws(PlaylistError) -> HLSPlaylist {
        guard bytes.count <= maximumSize else {
            throw PlaylistError(.tooLarge, "the HLS playlist is larger than \(maximumSize >> 20) MiB")
        }
        var reading = Reading()
        for line in PlaylistText.lines(bytes) {
            guard case .text(let text) = line else {
                reading.pending = Pending()
                reading.pendingVariant = nil
                continue
            }
            if text.hasPrefix("#") {
                reading.tag(text)
            } else if !text.isEmpty {
                reading.uri(text)
            }
        }
        return try reading.playlist()
    }

    /// What a segment's tags said before its URI.
    private struct Pending {
        var duration: Double?
        var title: String?
        var byteRange: (length: Int64, offset: Int64?)?
        var isDiscontinuity = false
    }

    /// The state of one read.
    private struct Reading {
        var master = HLSMasterPlaylist()
        var segments: [HLSMediaPlaylist.Segment] = []
        var targetDuration: Int64?
        var mediaSequence: Int64 = 0
        var discontinuitySequence: Int64 = 0
        var kind: HLSMediaPlaylist.Kind?
        var hasEnded = false
        var key: HLSMediaPlaylist.Key?
        var map: HLSMediaPlaylist.Map?
        var pending = Pending()
        var pendingVariant: HLSMasterPlaylist.Variant?
        var discontinuities: Int64 = 0

        mutating func tag(_ line: String) {
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let name = line[..<colon]
            let value = colon == line.endIndex ? line[colon...] : line[line.index(after: colon)...]
            switch name {
            case "#EXTINF":
                let comma = value.firstIndex(of: ",") ?? value.endIndex
                pending.duration = Double(value[..<comma].trimmingSpaces()).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
                let title = comma == value.endIndex ? "" : value[value.index(after: comma)...].trimmingSpaces()
                pending.title = title.isEmpty ? nil : String(title)
            case "#EXT-X-BYTERANGE":
                pending.byteRange = Self.byteRange(value)
            case "#EXT-X-DISCONTINUITY":
                pending.isDiscontinuity = true
            case "#EXT-X-TARGETDURATION":
                targetDuration = Int64(value.trimmingSpaces()).flatMap { $0 >= 0 ? $0 : nil }
            case "#EXT-X-MEDIA-SEQUENCE":
                mediaSequence = Int64(value.trimmingSpaces()).flatMap { $0 >= 0 ? $0 : nil } ?? 0
            case "#EXT-X-DISCONTINUITY-SEQUENCE":
                discontinuitySequence = Int64(value.trimmingSpaces()).flatMap { $0 >= 0 ? $0 : nil } ?? 0
            case "#EXT-X-PLAYLIST-TYPE":
                kind = value == "VOD" ? .vod : value == "EVENT" ? .event : nil
            case "#EXT-X-ENDLIST":
                hasEnded = true
            case "#EXT-X-KEY":
                key = Self.key(HLSAttributeList(value))
            case "#EXT-X-MAP":
                let attributes = HLSAttributeList(value)
                map = attributes["URI"].map { uri in
                    let range = attributes["BYTERANGE"].flatMap { Self.byteRange($0[...]) }
                    return HLSMediaPlaylist.Map(
                        uri: uri, byteRange: range.map { .init(offset: $0.offset ?? 0, length: $0.length) }, key: key)
                }
            case "#EXT-X-STREAM-INF":
                pendingVariant = Self.variant(HLSAttributeList(value))
            case "#EXT-X-MEDIA":
                let attributes = HLSAttributeList(value)
                guard master.renditions.count < maximumVariants, let type = attributes["TYPE"],
                    let group = attributes["GROUP-ID"], let name = attributes["NAME"]
                else { return }
                master.renditions.append(
                    .init(
                        type: type, groupID: group, name: name, language: attributes["LANGUAGE"], uri: attributes["URI"],
                        isDefault: attributes.flag("DEFAULT") ?? false, autoselect: attributes.flag("AUTOSELECT") ?? false))
            default:
                break
            }
        }

        mutating func uri(_ line: String) {
            defer { pending = Pending() }
            if var variant = pendingVariant {
                pendingVariant = nil
                variant.uri = line
                if master.variants.count < maximumVariants { master.variants.append(variant) }
                return
            }
            guard let duration = pending.duration else { return }
            if pending.isDiscontinuity { discontinuities += 1 }
            guard segments.count < maximumSegments else { return }
            var range: HLSMediaPlaylist.ByteRange?
            if let (length, offset) = pending.byteRange {
                // No offset: the range follows the previous segment's, in the same resource.
                let previous = segments.last.flatMap { $0.uri == line ? $0.byteRange : nil }
                range = .init(offset: offset ?? previous.map { $0.offset + $0.length } ?? 0, length: length)
            }
            segments.append(
                .init(
                    uri: line, duration: duration, title: pending.title, sequence: 0, discontinuitySequence: discontinuities,
                    isDiscontinuity: pending.isDiscontinuity, byteRange: range, key: key, map: map))
        }

        func playlist() throws(PlaylistError) -> HLSPlaylist {
            if !master.variants.isEmpty {
                guard segments.isEmpty else {
                    throw PlaylistError(.malformed, "the HLS playlist lists both variants and segments")
                }
                return .master(master)
            }
            guard let targetDuration else {
                throw PlaylistError(
                    .malformed,
                    segments.isEmpty
                        ? "the HLS playlist lists neither variants nor segments"
                        : "the HLS media playlist has no #EXT-X-TARGETDURATION")
            }
            var media = HLSMediaPlaylist(targetDuration: targetDuration, mediaSequence: mediaSequence, kind: kind, hasEnded: hasEnded)
            media.segments = segments
            // Numbers past Int64.max (a hostile playlist) stay at it.
            for index in media.segments.indices {
                let (sequence, overflow) = mediaSequence.addingReportingOverflow(Int64(index))
                media.segments[index].sequence = overflow ? .max : sequence
                let (discontinuity, over) = discontinuitySequence.addingReportingOverflow(segments[index].discontinuitySequence)
                media.segments[index].discontinuitySequence = over ? .max : discontinuity
            }
            return .media(media)
        }

        /// `length[@offset]`, both decimal and in range.
        static func byteRange(_ text: Substring) -> (length: Int64, offset: Int64?)? {
            let parts = text.trimmingSpaces().split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard let length = Int64(parts[0]), length > 0 else { return nil }
            guard parts.count == 2 else { return (length, nil) }
            guard let offset = Int64(parts[1]), offset >= 0, offset <= .max - length else { return nil }
            return (length, offset)
        }

        static func key(_ attributes: HLSAttributeList) -> HLSMediaPlaylist.Key? {
            guard let method = attributes["METHOD"], method != "NONE", let uri = attributes["URI"] else { return nil }
            return .init(
                method: method == "AES-128" ? .aes128 : .other(method), uri: uri, iv: attributes.hexadecimal("IV", count: 16))
        }

        static func variant(_ attributes: HLSAttributeList) -> HLSMasterPlaylist.Variant? {
            guard let bandwidth = attributes.integer("BANDWIDTH"), bandwidth >= 0 else { return nil }
            let codecs = (attributes["CODECS"] ?? "").split(separator: ",").map { String($0.trimmingSpaces()) }.filter { !$0.isEmpty }
            let videoCodecs = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "vp09", "av01", "mp4v"]
            let hasVideo = attributes["RESOLUTION"] != nil || codecs.contains { codec in videoCodecs.contains { codec.hasPrefix($0) } }
            return .init(
                uri: "", bandwidth: bandwidth, averageBandwidth: attributes.integer("AVERAGE-BANDWIDTH"), codecs: codecs,
                audioGroup: attributes["AUDIO"], hasVideo: hasVideo)
        }
    }
}
