/// The playlist formats the player follows. HLS playlists are M3U too: the M3U parser
/// recognises and refuses them.
package enum PlaylistFormat: Hashable, Sendable, CustomStringConvertible {
    /// M3U and extended M3U (`#EXTM3U`, `#EXTINF` titles), `.m3u8` included.
    case m3u
    /// PLS (`[playlist]`, `FileN=`, `TitleN=`).
    case pls
    /// XSPF (XML: `<playlist>`, `<track>`, `<location>`, `<title>`).
    case xspf

    /// The format's name, e.g. `M3U`.
    package var description: String {
        switch self {
        case .m3u: "M3U"
        case .pls: "PLS"
        case .xspf: "XSPF"
        }
    }
}
