/// Where a player's or an info reader's bytes come from, as messages and errors name it: a URL
/// (`http://`, `https://`) or a local file.
package enum AudioLocation: Hashable, Sendable, CustomStringConvertible {
    /// An `http(s)://` URL.
    case url(String)
    /// A local file.
    case file(path: String)

    /// A URL for a string with a scheme (`://`), else a file path.
    package init(_ string: String) {
        self = string.contains("://") ? .url(string) : .file(path: string)
    }

    /// The URL, for a URL.
    package var url: String? {
        if case .url(let url) = self { url } else { nil }
    }

    /// The path, for a file.
    package var path: String? {
        if case .file(let path) = self { path } else { nil }
    }

    /// The URL or path, for messages.
    package var text: String { url ?? path ?? "" }

    /// The extension of the last path segment of a file or URL (query and fragment left out),
    /// without the dot: `mp3` for `http://host/a/song.mp3?x=1`.
    package static func fileExtension(of name: String) -> String? {
        let path = name.prefix { $0 != "?" && $0 != "#" }
        let segment = path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...]
        guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return nil }
        let ext = segment[segment.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// The URL or path.
    package var description: String { text }
}
