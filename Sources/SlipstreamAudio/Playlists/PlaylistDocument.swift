/// A playlist's bytes as they arrived, in the format they were recognised as, with where they
/// were asked for and where they answered from (the final URL after redirects, against which
/// its entries resolve; the same for a file).
struct PlaylistDocument: Hashable, Sendable {
    var format: PlaylistFormat
    var bytes: [UInt8]
    /// The URL or file asked for.
    var location: AudioLocation
    /// The URL that answered (after redirects), or the file.
    var base: AudioLocation

    /// The playlist the bytes hold (see `Playlist.read`).
    func read() throws(PlaylistError) -> Playlist {
        try Playlist.read(bytes, format: format)
    }
}

extension PlaylistWalk {
    /// Follows the playlist `document` holds (see `follow(_:at:base:)`); throws its reading's
    /// error too.
    mutating func follow(_ document: PlaylistDocument) throws(PlaylistError) {
        try follow(document.read(), at: document.location, base: document.base)
    }
}
