import FoundationEssentials

extension PlaylistEntry {
    /// Where the entry points, in a playlist read from `base` (its final URL, after any
    /// redirects, or its file). An absolute `http(s)://` URL is taken as written; a relative one
    /// is resolved against a URL base as RFC 3986 says (`../a.mp3`, `//host/a.mp3`, `?q=1`); in
    /// a local playlist a relative path is taken from the playlist's folder, and a `file://` URL
    /// names a local file. Throws `.badEntry` for another scheme, a URL that does not parse,
    /// or a local file named by a playlist from the network (a page must not make the player
    /// read the listener's files).
    package func location(in base: AudioLocation) throws(PlaylistError) -> AudioLocation {
        let scheme = Self.scheme(of: target)?.lowercased()
        switch (scheme, base) {
        case ("file"?, .file):
            guard let url = URL(string: target), url.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true, !url.path.isEmpty else {
                throw PlaylistError(.badEntry, "not the URL of a local file")
            }
            return .file(path: Self.normalized(url.path))
        case ("file"?, .url):
            throw PlaylistError(.badEntry, "a playlist from the network may not name a local file")
        case (nil, .file(let path)):
            if target.hasPrefix("/") { return .file(path: Self.normalized(target)) }
            let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
            return .file(path: Self.normalized(folder + target))
        case (nil, .url(let url)):
            guard let resolved = URL(string: target, relativeTo: URL(string: url))?.absoluteURL else {
                throw PlaylistError(.badEntry, "not a URL or a path")
            }
            return try Self.web(resolved)
        case ("http"?, _), ("https"?, _):
            guard let url = URL(string: target) else { throw PlaylistError(.badEntry, "not a valid URL") }
            return try Self.web(url)
        case (let scheme?, _):
            throw PlaylistError(.badEntry, "a \(scheme): URL, not http(s) or a file")
        }
    }

    /// An `http(s)` URL with a host as a location.
    private static func web(_ url: URL) throws(PlaylistError) -> AudioLocation {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw PlaylistError(.badEntry, "not an http(s) URL")
        }
        return .url(url.absoluteString)
    }

    /// The scheme of a URL (`http` of `http://...`), nil for a path. A scheme is two or more
    /// characters, so that `C:\Music\a.mp3` counts as a path.
    package static func scheme(of text: String) -> Substring? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard scheme.count >= 2, let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "+-.".unicodeScalars.contains($0))
            })
        else { return nil }
        return scheme
    }

    /// `path` without `.` segments, empty segments and the `..` segments that follow a named
    /// one (`/a/./b/../c` is `/a/c`), so that one file has one name when playlists are compared.
    package static func normalized(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var segments: [Substring] = []
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case ".." where !segments.isEmpty && segments.last != "..": segments.removeLast()
            case ".." where isAbsolute: continue
            default: segments.append(segment)
            }
        }
        let joined = segments.joined(separator: "/")
        return isAbsolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
