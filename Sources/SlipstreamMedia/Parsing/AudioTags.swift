/// The descriptive tags found in a stream: title, artist and album, and which kinds of tag were
/// present. An ID3v2 value (or a Vorbis comment's) wins over an APE value, which wins over an
/// ID3v1 value.
public struct AudioTags: Hashable, Sendable, Codable {
    /// A kind of tag block found in the stream.
    public enum Kind: String, Hashable, Sendable, Codable, Comparable {
        /// ID3v2.2 (three-letter frame ids).
        case id3v22 = "ID3v2.2"
        /// ID3v2.3.
        case id3v23 = "ID3v2.3"
        /// ID3v2.4.
        case id3v24 = "ID3v2.4"
        /// APEv1 or APEv2.
        case ape = "APE"
        /// Lyrics3 (v1 or v2).
        case lyrics3 = "Lyrics3"
        /// ID3v1 or ID3v1.1 (the 128-byte `TAG` block).
        case id3v1 = "ID3v1"
        /// MP4's iTunes-style item list (`ilst`).
        case mp4 = "MP4"
        /// A Vorbis comment block (Ogg Vorbis, Opus, FLAC).
        case vorbisComment = "Vorbis comment"

        /// How much a value from this kind of tag is trusted: lower wins.
        package var rank: Int {
            switch self {
            case .id3v22, .id3v23, .id3v24, .mp4, .vorbisComment: 0
            case .ape: 1
            case .lyrics3: 2
            case .id3v1: 3
            }
        }

        /// Orders by trust, most trusted first.
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rank < rhs.rank }
    }

    /// The title, if a tag gave one.
    public var title: String?
    /// The artist (lead performer), if a tag gave one.
    public var artist: String?
    /// The album, if a tag gave one.
    public var album: String?
    /// The kinds of tag found, in the order first seen, each once.
    public var kinds: [Kind] = []

    /// Creates a set of tags; everything defaults to absent.
    public init(title: String? = nil, artist: String? = nil, album: String? = nil, kinds: [Kind] = []) {
        self.title = title
        self.artist = artist
        self.album = album
        self.kinds = kinds
    }

    /// Which field of `AudioTags` a tag frame or item fills.
    package enum Field {
        case title, artist, album
    }

    /// The kind that supplied each field, so a more trusted kind can replace it.
    private var sources: [Kind?] = [nil, nil, nil]

    private enum CodingKeys: String, CodingKey {
        case title, artist, album, kinds
    }

    /// Records that a tag of `kind` was found.
    package mutating func noteKind(_ kind: Kind) {
        if !kinds.contains(kind) { kinds.append(kind) }
    }

    /// Adds what `other` found: its kinds, and its values where they are more trusted.
    package mutating func merge(_ other: AudioTags) {
        for kind in other.kinds { noteKind(kind) }
        for (index, field) in [Field.title, .artist, .album].enumerated() {
            let value = field == .title ? other.title : field == .artist ? other.artist : other.album
            if let value, let kind = other.sources[index] { set(field, value, from: kind) }
        }
    }

    /// Sets `field` from a tag of `kind` unless a more trusted kind already set it. Empty values
    /// (after trimming spaces and NULs) are ignored.
    package mutating func set(_ field: Field, _ value: String, from kind: Kind) {
        let trimmed = value.trimmingTagPadding()
        guard !trimmed.isEmpty else { return }
        let index = field == .title ? 0 : field == .artist ? 1 : 2
        if let existing = sources[index], existing < kind { return }
        sources[index] = kind
        switch field {
        case .title: title = trimmed
        case .artist: artist = trimmed
        case .album: album = trimmed
        }
    }
}

extension String {
    /// The string without the NULs and spaces tags pad their fields with.
    fileprivate func trimmingTagPadding() -> String {
        var scalars = Substring(self).unicodeScalars
        while let last = scalars.last, last == "\0" || last == " " { scalars.removeLast() }
        while let first = scalars.first, first == "\0" || first == " " { scalars.removeFirst() }
        return String(scalars)
    }
}
