/// Reads HLS playlists (RFC 8216), master and media. Pure and bounded: a body over
/// `maximumSize` or with more than `maximumSegments` segments is refused, and unknown tags,
/// attributes and comments are ignored as the RFC asks of a client. A value the RFC's grammar
/// does not allow in a tag this reader uses (a duration that is negative, `nan` or `1e19`, a
/// sequence number with a sign) and an unreadable line are refused with their line's number,
/// never skipped: a segment quietly left out is audio quietly missing. Lines are split and
/// decoded as for other playlists (`PlaylistText`).
package enum HLSPlaylistParser {
    /// The largest playlist read: a day of two-second segments takes about 3 MiB.
    package static let maximumSize = 8 << 20
    /// The most segments read.
    package static let maximumSegments = 65_536
    /// The longest segment and target duration taken: a day, in seconds. (A segment is some
    /// seconds long; a whole file as one segment is hours. A sum of many can then be told in
    /// nanoseconds and in frames at any rate without overflow.)
    package static let maximumSegmentSeconds = 86_400
    /// The largest media or discontinuity sequence number taken (2^62: numbers after it stay
    /// far from overflow).
    package static let maximumSequence: Int64 = 1 << 62
    /// The byte past the last one a range may name (2^60: an offset and a length add up, and
    /// more is added to them, without overflow).
    package static let maximumByteOffset: Int64 = 1 << 60
    /// The most variants and renditions kept, each.
    package static let maximumVariants = 1000

    /// The playlist in `bytes`. Throws `.tooLarge`, or `.malformed` for one that is neither a
    /// master nor a media playlist, or that breaks the RFC where this reader looks (the message
    /// names the line).
    package static func parse(_ bytes: [UInt8]) throws(PlaylistError) -> HLSPlaylist {
        guard bytes.count <= maximumSize else {
            throw PlaylistError(.tooLarge, "the HLS playlist is larger than \(maximumSize >> 20) MiB")
        }
        var reading = Reading()
        for (index, line) in PlaylistText.lines(bytes).enumerated() {
            reading.lineNumber = index + 1
            guard case .text(let text) = line else {
                throw reading.refusal("is not text (control characters, or longer than \(Playlist.maximumLineLength) bytes)")
            }
            if text.hasPrefix("#") {
                try reading.tag(text)
            } else if !text.isEmpty {
                try reading.uri(text)
            }
        }
        return try reading.playlist()
    }

    /// What a segment's tags said before its URI.
    private struct Pending {
        package var duration: Double?
        package var title: String?
        package var byteRange: (length: Int64, offset: Int64?)?
        package var isDiscontinuity = false
    }

    /// The state of one read.
    private struct Reading {
        package var master = HLSMasterPlaylist()
        package var segments: [HLSMediaPlaylist.Segment] = []
        package var targetDuration: Int64?
        package var mediaSequence: Int64 = 0
        package var discontinuitySequence: Int64 = 0
        package var kind: HLSMediaPlaylist.Kind?
        package var hasEnded = false
        package var key: HLSMediaPlaylist.Key?
        package var map: HLSMediaPlaylist.Map?
        package var pending = Pending()
        package var pendingVariant: HLSMasterPlaylist.Variant?
        package var discontinuities: Int64 = 0
        /// The line being read, from 1.
        package var lineNumber = 0

        /// The error for the line being read, which `what` says is wrong.
        package func refusal(_ what: String) -> PlaylistError {
            PlaylistError(.malformed, "the HLS playlist's line \(lineNumber) \(what)")
        }

        /// The value of `tag` on the line being read as a decimal integer up to `maximum`.
        package func integer(_ value: Substring, of tag: String, upTo maximum: Int64) throws(PlaylistError) -> Int64 {
            guard let number = Int64(decimalDigits: value.trimmingSpaces()), number <= maximum else {
                throw refusal("has \(tag):\(String(value).printable), not a whole number from 0 to \(maximum)")
            }
            return number
        }

        package mutating func tag(_ line: String) throws(PlaylistError) {
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let name = line[..<colon]
            let value = colon == line.endIndex ? line[colon...] : line[line.index(after: colon)...]
            switch name {
            case "#EXTINF":
                let comma = value.firstIndex(of: ",") ?? value.endIndex
                guard let duration = Double(decimalText: value[..<comma].trimmingSpaces()),
                    duration <= Double(maximumSegmentSeconds)
                else {
                    throw refusal(
                        "has #EXTINF:\(String(value[..<comma]).printable), not a duration in seconds from 0 to \(maximumSegmentSeconds)")
                }
                pending.duration = duration
                let title = comma == value.endIndex ? "" : value[value.index(after: comma)...].trimmingSpaces()
                pending.title = title.isEmpty ? nil : String(title)
            case "#EXT-X-BYTERANGE":
                pending.byteRange = try byteRange(value, of: name)
            case "#EXT-X-DISCONTINUITY":
                pending.isDiscontinuity = true
            case "#EXT-X-TARGETDURATION":
                targetDuration = try integer(value, of: String(name), upTo: Int64(maximumSegmentSeconds))
            case "#EXT-X-MEDIA-SEQUENCE":
                mediaSequence = try integer(value, of: String(name), upTo: maximumSequence)
            case "#EXT-X-DISCONTINUITY-SEQUENCE":
                discontinuitySequence = try integer(value, of: String(name), upTo: maximumSequence)
            case "#EXT-X-PLAYLIST-TYPE":
                kind = value == "VOD" ? .vod : value == "EVENT" ? .event : nil
            case "#EXT-X-ENDLIST":
                hasEnded = true
            case "#EXT-X-KEY":
                key = Self.key(HLSAttributeList(value))
            case "#EXT-X-MAP":
                let attributes = HLSAttributeList(value)
                guard let uri = attributes["URI"] else { throw refusal("has #EXT-X-MAP without its URI") }
                let range = try attributes["BYTERANGE"].map { text throws(PlaylistError) in try byteRange(text[...], of: "BYTERANGE") }
                map = HLSMediaPlaylist.Map(uri: uri, byteRange: range.map { .init(offset: $0.offset ?? 0, length: $0.length) }, key: key)
            case "#EXT-X-STREAM-INF":
                pendingVariant = try variant(HLSAttributeList(value))
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

        package mutating func uri(_ line: String) throws(PlaylistError) {
            defer { pending = Pending() }
            if var variant = pendingVariant {
                pendingVariant = nil
                variant.uri = line
                if master.variants.count < maximumVariants { master.variants.append(variant) }
                return
            }
            guard let duration = pending.duration else { return }
            if pending.isDiscontinuity { discontinuities += 1 }
            guard segments.count < maximumSegments else { throw refusal("is a segment past the \(maximumSegments) read") }
            var range: HLSMediaPlaylist.ByteRange?
            if let (length, offset) = pending.byteRange {
                // No offset: the range follows the previous segment's, in the same resource.
                let previous = segments.last.flatMap { $0.uri == line ? $0.byteRange : nil }
                let start = offset ?? previous.map { $0.offset + $0.length } ?? 0
                guard length <= maximumByteOffset - start else {
                    throw refusal("is a segment whose byte range ends past byte \(maximumByteOffset)")
                }
                range = .init(offset: start, length: length)
            }
            segments.append(
                .init(
                    uri: line, duration: duration, title: pending.title, sequence: 0, discontinuitySequence: discontinuities,
                    isDiscontinuity: pending.isDiscontinuity, byteRange: range, key: key, map: map))
        }

        package func playlist() throws(PlaylistError) -> HLSPlaylist {
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

        /// `length[@offset]`, both decimal, the length above 0 and the range's end at most
        /// `maximumByteOffset`.
        package func byteRange(_ text: Substring, of tag: Substring) throws(PlaylistError) -> (length: Int64, offset: Int64?) {
            let parts = text.trimmingSpaces().split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let offset = parts.count == 2 ? Int64(decimalDigits: parts[1]) : nil
            guard let length = Int64(decimalDigits: parts[0]), length > 0, length <= maximumByteOffset,
                parts.count == 1 || offset.map({ $0 <= maximumByteOffset - length }) == true
            else {
                throw refusal("has \(tag):\(String(text).printable), not a byte range (length[@offset]) within \(maximumByteOffset) bytes")
            }
            return (length, offset)
        }

        package static func key(_ attributes: HLSAttributeList) -> HLSMediaPlaylist.Key? {
            guard let method = attributes["METHOD"], method != "NONE", let uri = attributes["URI"] else { return nil }
            return .init(
                method: method == "AES-128" ? .aes128 : .other(method), uri: uri, iv: attributes.hexadecimal("IV", count: 16))
        }

        package func variant(_ attributes: HLSAttributeList) throws(PlaylistError) -> HLSMasterPlaylist.Variant {
            guard let bandwidth = attributes.integer("BANDWIDTH") else {
                throw refusal("has #EXT-X-STREAM-INF without a BANDWIDTH that is a whole number")
            }
            let codecs = (attributes["CODECS"] ?? "").split(separator: ",").map { String($0.trimmingSpaces()) }.filter { !$0.isEmpty }
            let videoCodecs = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "vp09", "av01", "mp4v"]
            let hasVideo = attributes["RESOLUTION"] != nil || codecs.contains { codec in videoCodecs.contains { codec.hasPrefix($0) } }
            return .init(
                uri: "", bandwidth: bandwidth, averageBandwidth: attributes.integer("AVERAGE-BANDWIDTH"), codecs: codecs,
                audioGroup: attributes["AUDIO"], hasVideo: hasVideo)
        }
    }
}
