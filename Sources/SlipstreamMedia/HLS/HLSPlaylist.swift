/// An HLS playlist (RFC 8216): a master playlist listing variants of one stream, or a media
/// playlist listing the segments of one. URIs are as written; the caller resolves them against
/// the playlist's own URL.
package enum HLSPlaylist: Hashable, Sendable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)
}

/// A master playlist: the variants (`EXT-X-STREAM-INF`) and the renditions (`EXT-X-MEDIA`).
package struct HLSMasterPlaylist: Hashable, Sendable {
    /// One variant stream.
    package struct Variant: Hashable, Sendable {
        /// Its media playlist.
        package var uri: String
        /// Peak bits per second (`BANDWIDTH`).
        package var bandwidth: Int64
        /// Average bits per second (`AVERAGE-BANDWIDTH`), when given.
        package var averageBandwidth: Int64?
        /// The `CODECS` list (`mp4a.40.2`, `avc1.42e00a` ...); empty when not given.
        package var codecs: [String]
        /// The `GROUP-ID` of the audio renditions that go with it (`AUDIO`).
        package var audioGroup: String?
        /// Whether it carries pictures (`RESOLUTION`, or a video codec in `CODECS`).
        package var hasVideo: Bool
    }

    /// One rendition (`EXT-X-MEDIA`).
    package struct Rendition: Hashable, Sendable {
        /// `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
        package var type: String
        package var groupID: String
        package var name: String
        package var language: String?
        /// Its media playlist; nil when the rendition is inside the variant's own segments.
        package var uri: String?
        package var isDefault: Bool
        package var autoselect: Bool
    }

    package var variants: [Variant] = []
    package var renditions: [Rendition] = []
}

/// A media playlist: its segments, in order, and what says how to follow it.
package struct HLSMediaPlaylist: Hashable, Sendable {
    /// `EXT-X-PLAYLIST-TYPE`.
    package enum Kind: Hashable, Sendable {
        /// Segments are only ever added (`EVENT`).
        case event
        /// The playlist never changes (`VOD`).
        case vod
    }

    /// How a segment is encrypted (`EXT-X-KEY`).
    package struct Key: Hashable, Sendable {
        package enum Method: Hashable, Sendable {
            /// AES-128-CBC of the whole segment, PKCS7 padded.
            case aes128
            /// Another method (`SAMPLE-AES` ...), named as written: not played.
            case other(String)
        }
        package var method: Method
        /// Where the key is.
        package var uri: String
        /// The 16-byte IV; nil: the segment's media sequence number, big-endian.
        package var iv: [UInt8]?

        /// The IV of the segment (or the initialization section of the segment) `sequence`.
        package func iv(sequence: Int64) -> [UInt8] {
            iv ?? Self.iv(sequence: sequence)
        }

        /// The IV of a segment whose key gives none: its media sequence number, big-endian
        /// (RFC 8216, 5.2).
        package static func iv(sequence: Int64) -> [UInt8] {
            Array(repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (56 - 8 * $0)) }
        }
    }

    /// A range of a resource's bytes (`EXT-X-BYTERANGE`, or the `BYTERANGE` of a map).
    package struct ByteRange: Hashable, Sendable {
        package var offset: Int64
        package var length: Int64

        package init(offset: Int64, length: Int64) {
            self.offset = offset
            self.length = length
        }
    }

    /// The initialization section of fragmented MP4 segments (`EXT-X-MAP`).
    package struct Map: Hashable, Sendable {
        package var uri: String
        package var byteRange: ByteRange?
        /// How it is encrypted: the `EXT-X-KEY` in effect where the `EXT-X-MAP` tag is (RFC
        /// 8216 4.3.2.5; its IV is required, and when a playlist leaves it out, the media
        /// sequence number of the first segment it initializes stands in, as for segments);
        /// nil: it is not.
        package var key: Key?
    }

    /// One media segment.
    package struct Segment: Hashable, Sendable {
        package var uri: String
        /// Its duration in seconds (`EXTINF`).
        package var duration: Double
        /// The title after the duration in `EXTINF`, when there is one.
        package var title: String?
        /// Its media sequence number.
        package var sequence: Int64
        /// Its discontinuity sequence number: it changes at each `EXT-X-DISCONTINUITY`.
        package var discontinuitySequence: Int64
        /// A discontinuity comes before it (format, timestamps or encoding may change).
        package var isDiscontinuity: Bool
        /// Only these bytes of the resource are the segment.
        package var byteRange: ByteRange?
        /// How it is encrypted; nil: it is not.
        package var key: Key?
        /// Its initialization section (fMP4), if any.
        package var map: Map?
    }

    /// The longest a segment may last, in seconds (`EXT-X-TARGETDURATION`).
    package var targetDuration: Int64
    /// The media sequence number of the first segment (`EXT-X-MEDIA-SEQUENCE`).
    package var mediaSequence: Int64 = 0
    package var kind: Kind?
    /// No segment will be added (`EXT-X-ENDLIST`).
    package var hasEnded = false
    package var segments: [Segment] = []

    /// Whether the playlist is live: it may gain segments and lose the oldest ones.
    package var isLive: Bool { !hasEnded && kind != .vod }
    /// The sum of the segments' durations, in seconds.
    package var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}
