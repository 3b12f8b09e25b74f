/// One entry of a playlist as written in it: what it points at (a URL or a path, absolute or
/// relative) and its title, if the playlist gives one.
package struct PlaylistEntry: Hashable, Sendable {
    /// The URL or path as written (trimmed of spaces).
    package var target: String
    /// The entry's title (`#EXTINF`, `TitleN=`, `<title>`), nil when there is none.
    package var title: String?

    package init(_ target: String, title: String? = nil) {
        self.target = target
        self.title = title
    }
}
