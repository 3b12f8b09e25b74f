/// An HLS playlist (RFC 8216): a master playlist listing variants of one stream, or a media
/// playlist listing the segments of one. URIs are as written; the caller resolves them against
/// the playlist's own URL.
enum HLSPlaylist: Hashable, Sendable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)
}

/// A master playlist: the variants (`EXT-X-STREAM-INF`) and the renditions (`EXT-X-MEDIA`).
struct HLSMasterPlaylist: Hashable, Sendable {
    /// One variant stream.
    struct Variant: Hashable, Sendable {
        /// Its media playlist.
        var uri: String
        /// Peak bits per second (`BANDWIDTH`).
        var bandwidth: Int64
        /// Average bits per second (`AVERAGE-BANDWIDTH`), when given.
        var averageBandwidth: Int64?
        /// The `CODECS` list (`mp4a.40.2`, `avc1.42e00a` ...); empty when not given.
        var codecs: [String]
        /// The `GROUP-ID` of the audio renditions that go with it (`AUDIO`).
        var audioGroup: String?
        /// Whether it carries pictures (`RESOLUTION`, or a video codec in `CODECS`).
        var hasVideo: Bool
    }

    /// One rendition (`EXT-X-MEDIA`).
    struct Rendition: Hashable, Sendable {
        /// `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
        var type: String
        var groupID: String
        var name: String
        var language: String?
        /// Its media playlist; nil when the rendition is inside the variant's own segments.
        var uri: String?
        var isDefault: Bool
        var autoselect: Bool
    }

    var variants: [Variant] = []
    var renditions: [Rendition] = []
}

/// A media playlist: its segments, in order, and what says how to follow it.
struct HLSMediaPlaylist: Hashable, Sendable {
    /// `EXT-X-PLAYLIST-TYPE`.
    enum Kind: Hashable, Sendable {
        /// Segments are only ever added (`EVENT`).
        case event
        /// The playlist never changes (`VOD`).
        case vod
    }

    /// How a segment is encrypted (`EXT-X-KEY`).
    struct Key: Hashable, Sendable {
        enum Method: Hashable, Sendable {
            /// AES-128-CBC of the whole segment, PKCS7 padded.
            case aes128
            /// Another method (`SAMPLE-AES` ...), named as written: not played.
            case other(String)
        }
        var method: Method
        /// Where the key is.
        var uri: String
        /// The 16-byte IV; nil: the segment's media sequence number, big-endian.
        var iv: [UInt8]?

        /// The IV of the segment (or the initialization section of the segment) `sequence`.
        func iv(sequence: Int64) -> [UInt8] {
            iv ?? HLSDecryptor.iv(sequence: sequence)
        }
    }

    /// A range of a resource's bytes (`EXT-X-BYTERANGE`, or the `BYTERANGE` of a map).
    struct ByteRange: Hashable, Sendable {
        var offset: Int64
        var length: Int64
    }

    /// The initialization section of fragmented MP4 segments (`EXT-X-MAP`).
    struct Map: Hashable, Sendable {
        var uri: String
        var byteRange: ByteRange?
        /// How it is encrypted: the `EXT-X-KEY` in effect where the `EXT-X-MAP` tag is (RFC
        /// 8216 4.3.2.5; its IV is required, and when a playlist leaves it out, the media
        /// sequence number of the first segment it initializes stands in, as for segments);
        /// nil: it is not.
        var key: Key?
    }

    /// One media segment.
    struct Segment: Hashable, Sendable {
        var uri: String
        /// Its duration in seconds (`EXTINF`).
        var duration: Double
        /// The title after the duration in `EXTINF`, when there is one.
        var title: String?
        /// Its media sequence number.
        var sequence: Int64
        /// Its discontinuity sequence number: it changes at each `EXT-X-DISCONTINUITY`.
        var discontinuitySequence: Int64
        /// A discontinuity comes before it (format, timestamps or encoding may change).
        var isDiscontinuity: Bool
        /// Only these bytes of the resource are the segment.
        var byteRange: ByteRange?
        /// How it is encrypted; nil: it is not.
        var key: Key?
        /// Its initialization section (fMP4), if any.
        var map: Map?
    }

    /// The longest a segment may last, in seconds (`EXT-X-TARGETDURATION`).
    var targetDuration: Int64
    /// The media sequence number of the first segment (`EXT-X-MEDIA-SEQUENCE`).
    var mediaSequence: Int64 = 0
    var kind: Kind?
    /// No segment will be added (`EXT-X-ENDLIST`).
    var hasEnded = false
    var segments: [Segment] = []

    /// Whether the playlist is live: it may gain segments and lose the oldest ones.
    var isLive: Bool { !hasEnded && kind != .vod }
    /// The sum of the segments' durations, in seconds.
    var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}
