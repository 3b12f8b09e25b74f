/// Reads XSPF playlists: each `<track>` of the `<trackList>` of the `<playlist>` root gives an
/// entry for each of its `<location>`s (alternatives for one track, tried in order), titled
/// by its `<title>`. The XML is read by a tolerant tokenizer: element names in any case and
/// with any namespace prefix, end tags that do not match skipped, nothing expanded that the
/// document declares. Text is UTF-8, or Latin-1 where it is not valid UTF-8.
package enum XSPFParser {
    /// The entries of `bytes`, at most `Playlist.maximumEntries`.
    package static func entries(_ bytes: [UInt8]) -> [PlaylistEntry] {
        var tokenizer = XMLTokenizer(bytes)
        var reader = Reader()
        while reader.entries.count < Playlist.maximumEntries, let token = tokenizer.next() {
            switch token {
            case .start(let name, let isEmpty):
                reader.open(name)
                if isEmpty { reader.close(name) }
            case .end(let name):
                reader.close(name)
            case .text(let range):
                reader.appendText { tokenizer.appendText(range, to: &$0) }
            case .cdata(let range):
                reader.appendText { $0 += bytes[range] }
            }
        }
        return Array(reader.entries.prefix(Playlist.maximumEntries))
    }

    /// Where the tokens are, and the track being read.
    private struct Reader {
        /// The open elements' names, outermost first (deeper ones only counted: nothing read
        /// is that deep).
        package var path: [String] = []
        package var hiddenDepth = 0
        /// The track being read: its locations and title.
        package var locations: [String] = []
        package var title: String?
        /// The text of the `<location>` or `<title>` being read; nil outside them, or when it
        /// grew too long.
        package var text: [UInt8]?
        package var entries: [PlaylistEntry] = []

        package static let trackPath = ["playlist", "tracklist", "track"]

        mutating func open(_ name: String) {
            guard path.count < 8, hiddenDepth == 0 else {
                hiddenDepth += 1
                return
            }
            path.append(name)
            if path == Self.trackPath {
                locations = []
                title = nil
            } else if path.count == 4, path.starts(with: Self.trackPath), name == "location" || name == "title" {
                text = []
            }
        }

        /// Closes `name`, and every element opened inside it that was left open; an end tag
        /// that matches no open element is ignored.
        package mutating func close(_ name: String) {
            if hiddenDepth > 0 {
                hiddenDepth -= 1
                return
            }
            guard let index = path.lastIndex(of: name) else { return }
            while path.count > index {
                let closing = path.count
                if closing == 4, path.starts(with: Self.trackPath) { finishText(path[3]) }
                if closing == 3, path == Self.trackPath { finishTrack() }
                path.removeLast()
            }
        }

        package mutating func appendText(_ append: (inout [UInt8]) -> Void) {
            guard var current = text else { return }
            text = nil
            append(&current)
            if current.count <= Playlist.maximumLineLength { text = current }
        }

        private mutating func finishText(_ element: String) {
            guard let bytes = text else { return }
            text = nil
            guard let value = Self.value(bytes) else { return }
            if element == "location" { locations.append(value) } else if title == nil { title = value }
        }

        private mutating func finishTrack() {
            for location in locations { entries.append(PlaylistEntry(location, title: title)) }
            locations = []
        }

        /// Text as a value: decoded, white space trimmed; nil when empty or holding control
        /// characters.
        private static func value(_ bytes: [UInt8]) -> String? {
            let start = bytes.firstIndex { !XMLTokenizer.isSpace($0) } ?? bytes.endIndex
            let end = bytes.lastIndex { !XMLTokenizer.isSpace($0) }.map { $0 + 1 } ?? start
            guard start < end, !bytes[start..<end].contains(where: PlaylistText.isControl) else { return nil }
            return bytes[start..<end].withUnsafeBytes { String(PlaylistText.decode($0)) }
        }
    }
}
