/// The title of what a radio stream plays now, as the station announces it in the stream (an
/// ICY `StreamTitle`, usually "Artist - Title").
public struct StreamTitle: Hashable, Sendable, Codable {
    /// The title; empty when the station cleared it.
    public var title: String
    /// A URL the station gives with the title (ICY `StreamUrl`: a web page or cover), if any.
    public var url: String?

    /// A title, with a URL or not.
    public init(title: String, url: String? = nil) {
        self.title = title
        self.url = url
    }

    /// The artist and the title, when the title reads "Artist - Title" (the convention of
    /// SHOUTcast and Icecast sources); nil otherwise.
    public var artistAndTitle: (artist: String, title: String)? {
        let utf8 = title.utf8
        guard let dash = utf8.indices.first(where: { utf8[$0...].starts(with: " - ".utf8) }) else { return nil }
        let artist = title[..<dash].trimmingSpaces()
        let song = title[utf8.index(dash, offsetBy: 3)...].trimmingSpaces()
        guard !artist.isEmpty, !song.isEmpty else { return nil }
        return (String(artist), String(song))
    }
}
