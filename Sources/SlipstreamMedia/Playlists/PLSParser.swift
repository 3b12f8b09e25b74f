/// Reads PLS playlists: `key=value` lines in a `[playlist]` section, keys in any case,
/// `FileN` the entries and `TitleN` their titles, in the order of N whatever the order of the
/// lines and whatever numbers are missing. `NumberOfEntries`, `LengthN` and `Version` are not
/// needed, and not trusted. Lines before the first section are read as the playlist's too;
/// another section ends it until `[playlist]` comes again.
package enum PLSParser {
    /// The entries of `bytes`, at most `Playlist.maximumEntries`.
    package static func entries(_ bytes: [UInt8]) -> [PlaylistEntry] {
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        var inPlaylist = true
        for line in PlaylistText.lines(bytes) {
            guard case .text(let text) = line else { continue }
            if text.hasPrefix("[") {
                inPlaylist = text.lowercased().hasPrefix("[playlist]")
                continue
            }
            guard inPlaylist, let equals = text.firstIndex(of: "=") else { continue }
            let key = text[..<equals].trimmingSpaces().lowercased()
            let value = String(text[text.index(after: equals)...].trimmingSpaces())
            if let number = Self.number(key, after: "file"), !value.isEmpty {
                files[number] = value
            } else if let number = Self.number(key, after: "title") {
                titles[number] = value
            }
        }
        return files.keys.sorted().prefix(Playlist.maximumEntries).map { number in
            PlaylistEntry(files[number]!, title: titles[number].flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// N of a key `nameN` (decimal digits only, leading zeros allowed), nil for another key.
    package static func number(_ key: String, after name: String) -> Int? {
        guard key.hasPrefix(name) else { return nil }
        let digits = key.utf8.dropFirst(name.utf8.count)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
