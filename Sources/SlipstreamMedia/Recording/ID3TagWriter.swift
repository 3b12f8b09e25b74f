/// Writes the ID3v2.3 tag a recorded MP3 file starts with: a title (TIT2) and an artist (TPE1).
/// Text is ISO-8859-1 when every character fits, else UTF-16 with a byte-order mark, the two
/// encodings every ID3v2.3 reader knows. No padding, no unsynchronisation. Pure.
package enum ID3TagWriter {
    /// A tag with `title` and, when given, `artist`.
    package static func tag(title: String, artist: String?) -> [UInt8] {
        var frames = frame("TIT2", title)
        if let artist { frames += frame("TPE1", artist) }
        // "ID3", version 3.0, no flags, the size of what follows in 4 x 7 bits.
        return Array("ID3".utf8) + [3, 0, 0] + synchsafe(frames.count) + frames
    }

    /// The tag for a radio title: "Artist - Title" gives both frames, any other text is the
    /// title; nil for an empty title.
    package static func tag(for title: StreamTitle) -> [UInt8]? {
        if let split = title.artistAndTitle { return tag(title: split.title, artist: split.artist) }
        return title.title.isEmpty ? nil : tag(title: title.title, artist: nil)
    }

    /// A text frame: its id, its size (a plain 32-bit number in v2.3), no flags, then the
    /// encoding byte and the text.
    private static func frame(_ id: String, _ text: String) -> [UInt8] {
        let body = encoded(text)
        let size = body.count
        return Array(id.utf8) + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + [0, 0] + body
    }

    /// Encoding 0 (ISO-8859-1) and its bytes, or 1 (UTF-16, little-endian after its BOM).
    private static func encoded(_ text: String) -> [UInt8] {
        if text.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) {
            return [0] + text.unicodeScalars.map { UInt8($0.value) }
        }
        return [1, 0xFF, 0xFE] + text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
    }

    private static func synchsafe(_ value: Int) -> [UInt8] {
        [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) }
    }
}
