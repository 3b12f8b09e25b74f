import SlipstreamHTTP

extension AudioInfo {
    /// The playlist a description came from, when the URL or file given was one.
    public struct PlaylistOrigin: Hashable, Sendable, Codable {
        /// The playlist's URL or file, as given.
        public var location: String
        /// The entry's title in the playlist, where it gives one.
        public var title: String?
        /// Entries tried before the one described that could not be described (dead, not
        /// audio, pointing nowhere).
        public var skippedEntries: Int
    }

    /// Describes the first entry of the playlist `document` holds that can be described (one
    /// level of playlists in it followed), or throws the last entry's failure, saying how many
    /// entries were tried.
    static func follow(_ document: PlaylistDocument, options: Options, engine: HTTPEngine?) async throws(AudioInfoError) -> AudioInfo {
        var walk = PlaylistWalk(root: document.location)
        do throws(PlaylistError) {
            try walk.follow(document)
        } catch {
            throw AudioInfoError(playlistError: error, at: document.location.text)
        }
        var skipped = 0
        var last: AudioInfoError?
        while let entry = walk.next() {
            do throws(AudioInfoError) {
                let place: AudioLocation
                do throws(PlaylistError) { place = try entry.location.get() } catch {
                    throw AudioInfoError(playlistError: error, at: entry.text)
                }
                switch try await describe(
                    place, name: place.text, options: options, engine: engine, loginOrigins: document.location.origins)
                {
                case .audio(var info):
                    info.source.playlist = PlaylistOrigin(
                        location: document.location.text, title: entry.entry.title, skippedEntries: skipped)
                    return info
                case .playlist(let nested):
                    if var info = try await describeHLS(nested, options: options, engine: engine) {
                        info.source.playlist = PlaylistOrigin(
                            location: document.location.text, title: entry.entry.title, skippedEntries: skipped)
                        return info
                    }
                    do throws(PlaylistError) { try walk.follow(nested) } catch {
                        throw AudioInfoError(playlistError: error, at: place.text)
                    }
                }
            } catch {
                if error.code == .cancelled { throw error }
                skipped += 1
                last = error
            }
        }
        let root = document.location
        let tried = walk.tried == 1 ? "its one entry could not be described" : "none of the \(walk.tried) entries tried could be described"
        throw AudioInfoError(
            last?.code ?? .notAudio, "\(root): a playlist; " + tried + (last.map { " (the last: \($0.message))" } ?? ""),
            url: root.url, path: root.path, underlying: last)
    }
}

extension AudioInfoError {
    /// A playlist, or an entry of it, that cannot be followed: `place` names it.
    init(playlistError error: PlaylistError, at place: String) {
        let location = AudioLocation(place)
        self.init(.notAudio, "\(place): \(error.message)", url: location.url, path: location.path, underlying: error)
    }
}
