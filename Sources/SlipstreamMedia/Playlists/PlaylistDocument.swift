/// A playlist's bytes as they arrived, in the format they were recognised as, with where they
/// were asked for and where they answered from (the final URL after redirects, against which
/// its entries resolve; the same for a file).
package struct PlaylistDocument: Hashable, Sendable {
    package var format: PlaylistFormat
    package var bytes: [UInt8]
    /// The URL or file asked for.
    package var location: AudioLocation
    /// The URL that answered (after redirects), or the file.
    package var base: AudioLocation

    package init(format: PlaylistFormat, bytes: [UInt8], location: AudioLocation, base: AudioLocation) {
        self.format = format
        self.bytes = bytes
        self.location = location
        self.base = base
    }

    /// The playlist the bytes hold (see `Playlist.read`).
    package func read() throws(PlaylistError) -> Playlist {
        try Playlist.read(bytes, format: format)
    }
}

extension PlaylistWalk {
    /// Follows the playlist `document` holds (see `follow(_:at:base:)`); throws its reading's
    /// error too.
    package mutating func follow(_ document: PlaylistDocument) throws(PlaylistError) {
        try follow(document.read(), at: document.location, base: document.base)
    }
}
