/// A playlist read from its bytes: M3U (with `#EXTINF` titles), PLS or XSPF, its entries in
/// order. Reading is pure and bounded: a body over `maximumSize` is refused, entries past
/// `maximumEntries` are dropped, lines over `maximumLineLength` are ignored, and an HLS
/// playlist is refused with an error naming HLS.
package struct Playlist: Hashable, Sendable {
    /// The largest body read, in bytes (1 MiB: a station's playlist is a few hundred bytes, a
    /// music library's a few hundred KiB).
    package static let maximumSize = 1 << 20
    /// Entries kept, the first ones in order.
    package static let maximumEntries = 1000
    /// The longest line (or XSPF text) read, in bytes; longer ones are ignored.
    package static let maximumLineLength = 16 * 1024

    /// The error for a body larger than `maximumSize`.
    package static let tooLarge = PlaylistError(.tooLarge, "the playlist is larger than \(maximumSize >> 20) MiB")

    /// The format it was read as.
    package var format: PlaylistFormat
    /// The entries, in order (at most `maximumEntries`).
    package var entries: [PlaylistEntry]

    /// Reads `bytes` as a playlist in `format`. Throws `.tooLarge` over `maximumSize`, `.hls`
    /// for an HLS playlist, `.noEntries` when no entry can be read.
    package static func read(_ bytes: [UInt8], format: PlaylistFormat) throws(PlaylistError) -> Playlist {
        guard bytes.count <= maximumSize else {
            throw tooLarge
        }
        let entries: [PlaylistEntry]
        switch format {
        case .m3u: entries = try M3UParser.entries(bytes)
        case .pls: entries = PLSParser.entries(bytes)
        case .xspf: entries = XSPFParser.entries(bytes)
        }
        guard !entries.isEmpty else {
            throw PlaylistError(.noEntries, "the \(format) playlist has no entries")
        }
        return Playlist(format: format, entries: entries)
    }
}
