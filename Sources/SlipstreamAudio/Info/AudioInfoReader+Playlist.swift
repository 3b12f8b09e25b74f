extension AudioInfoReader {
    /// The playlist the source is, when its first bytes (`head`, the whole source when
    /// `isWhole`) say so: read to its end (at most `Playlist.maximumSize`, in one more read
    /// when the head was not all of it); nil for anything else.
    mutating func playlist(startingWith head: [UInt8], isWhole: Bool) async throws(AudioInfoError) -> PlaylistDocument? {
        // The head is the whole source or more than the recognizer looks at.
        let verdict = head.withUnsafeBytes {
            PlaylistRecognizer.recognize($0, isComplete: true, contentType: summary.contentType, name: summary.effectiveURL ?? name)
        }
        guard case .playlist(let format) = verdict else { return nil }
        var bytes = head
        if !isWhole, bytes.count <= Playlist.maximumSize {
            bytes += try await read(at: Int64(bytes.count), count: Playlist.maximumSize + 1 - bytes.count)
        }
        guard bytes.count <= Playlist.maximumSize else {
            throw AudioInfoError(playlistError: Playlist.tooLarge, at: name)
        }
        let location = source.location
        return PlaylistDocument(
            format: format, bytes: bytes, location: location, base: summary.effectiveURL.map(AudioLocation.url) ?? location)
    }
}
