/// What a download of an HLS stream fetches and how it joins it into one file. Pure: made by
/// `HLSDownloadPlanner` from playlists, carried out by SlipstreamDownload's `HLSDownloader`.
///
/// Each resource (a segment's file, an `EXT-X-MAP` init section, an AES-128 key) is one URL,
/// fetched whole once however many pieces read from it (byte ranges of one file). The pieces,
/// in order, are what the output is made of: a piece is a resource, or a byte range of one,
/// decrypted when a key applies. The output's offsets are known only once every resource is
/// on disk, so resources are downloaded as files of their own (with their own resume records)
/// and joined after.
package struct HLSDownloadPlan: Hashable, Sendable {
    /// What a resource is, for messages.
    package enum ResourceKind: Hashable, Sendable {
        case segment, initSection, key
    }

    /// One URL to fetch whole.
    package struct Resource: Hashable, Sendable {
        /// The absolute URL.
        package var url: String
        package var kind: ResourceKind
    }

    /// An AES-128 decryption.
    package struct Decryption: Hashable, Sendable {
        /// The resource holding the 16-byte key.
        package var key: Int
        /// The 16-byte IV.
        package var iv: [UInt8]
    }

    /// One piece of the output.
    package struct Piece: Hashable, Sendable {
        /// The resource it is read from (an index into `resources`).
        package var resource: Int
        /// The bytes of the resource it is, or nil for all of them.
        package var offset: Int64?
        package var length: Int64?
        /// How it is decrypted; nil: it is not encrypted.
        package var decryption: Decryption?
        /// A media segment (false: an init section).
        package var isSegment: Bool
        /// The segment's media sequence number (of the segment it initializes, for a map).
        package var sequence: Int64
    }

    /// The media playlist's URL.
    package var playlistURL: String
    /// The resources, in the order the pieces first need them.
    package var resources: [Resource] = []
    /// The output, in order.
    package var pieces: [Piece] = []
    /// The media segments.
    package var segmentCount = 0
    /// The stream's duration, in seconds.
    package var duration: Double = 0

    /// The name of the piece's resource for a person: "segment 12 (URL)".
    package func describe(_ piece: Piece) -> String {
        let url = resources[piece.resource].url
        return piece.isSegment ? "segment \(piece.sequence) (\(url))" : "init section (\(url))"
    }

    /// The name of a resource for a person: "segment 12 (URL)", "AES-128 key (URL)".
    package func describe(resource index: Int) -> String {
        let resource = resources[index]
        switch resource.kind {
        case .key: return "AES-128 key (\(resource.url))"
        case .initSection: return "init section (\(resource.url))"
        case .segment:
            let sequence = pieces.first { $0.resource == index && $0.isSegment }?.sequence
            return sequence.map { "segment \($0) (\(resource.url))" } ?? "segment (\(resource.url))"
        }
    }
}

/// Why an HLS stream cannot be downloaded: a message naming the playlist, segment or key.
package struct HLSDownloadFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for a person.
    package var message: String
    /// The playlist is live: it has no end to download to (it can be recorded as it plays).
    package var isLive: Bool
    package var description: String { message }

    package init(_ message: String, isLive: Bool = false) {
        self.message = message
        self.isLive = isLive
    }
}
