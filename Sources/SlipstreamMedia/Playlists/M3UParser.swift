/// Reads M3U playlists: plain (one URL or path per line), extended (`#EXTM3U`, with an
/// `#EXTINF:duration[ attributes],title` line giving the next entry's title) and UTF-8 `.m3u8`.
/// Other `#` lines are comments. An HLS playlist (any `#EXT-X-` tag, such as
/// `#EXT-X-TARGETDURATION` or `#EXT-X-STREAM-INF`) is refused: its entries are segments or
/// variants, not streams to play one after the other (the player plays it as one stream,
/// through `HLSAudioSource`, when it meets this refusal).
package enum M3UParser {
    /// The entries of `bytes`, at most `Playlist.maximumEntries`; throws `.hls` for HLS.
    package static func entries(_ bytes: [UInt8]) throws(PlaylistError) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var title: String?
        for line in PlaylistText.lines(bytes) {
            guard case .text(let text) = line else {
                // An unreadable line may have been the entry a title was for.
                title = nil
                continue
            }
            if text.hasPrefix("#") {
                if text.hasPrefix("#EXT-X-") {
                    let tag = text.prefix { $0 != ":" }
                    throw PlaylistError(.hls, "an HLS playlist (\(tag)), which is played and described only from an http(s) URL")
                }
                if let info = Self.title(ofInfo: text) { title = info.isEmpty ? nil : info }
                continue
            }
            guard !text.isEmpty else { continue }
            if entries.count < Playlist.maximumEntries { entries.append(PlaylistEntry(text, title: title)) }
            title = nil
        }
        return entries
    }

    /// The title of an `#EXTINF:` line: what follows the first comma outside double quotes
    /// (attributes such as `tvg-name="A, B"` may hold commas), trimmed; nil for another line.
    package static func title(ofInfo line: String) -> String? {
        guard line.utf8.count >= 8, line.utf8.prefix(8).elementsEqual("#EXTINF:".utf8) else { return nil }
        var quoted = false
        for index in line.utf8.indices {
            switch line.utf8[index] {
            case UInt8(ascii: "\""): quoted.toggle()
            case UInt8(ascii: ",") where !quoted:
                return String(line[line.utf8.index(after: index)...].trimmingSpaces())
            default: break
            }
        }
        return ""
    }
}
