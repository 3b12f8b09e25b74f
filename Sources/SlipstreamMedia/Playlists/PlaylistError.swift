/// Why a playlist, or one of its entries, cannot be followed: a code, and a message a person can
/// act on (it does not name the playlist or the entry: the player's and the info reader's errors
/// put its URL or file in front).
package struct PlaylistError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package enum Code: Hashable, Sendable {
        /// An HLS playlist (`#EXT-X-...` tags): not a list of streams. The player plays one
        /// from a URL as one stream (`HLSAudioSource`), and `AudioInfo` describes it as one.
        case hls
        /// An HLS playlist that breaks a rule that matters (a media playlist without its target
        /// duration, variants and segments in one).
        case malformed
        /// Larger than `Playlist.maximumSize`.
        case tooLarge
        /// No entry could be read from it.
        case noEntries
        /// An entry that names nothing the player can open (another scheme, a local file in a
        /// playlist from the network, a URL that does not parse).
        case badEntry
        /// A playlist already opened (playlists that list each other), or one nested deeper
        /// than the one level followed.
        case notFollowed
    }

    /// What went wrong.
    package var code: Code
    /// One line for a person.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
