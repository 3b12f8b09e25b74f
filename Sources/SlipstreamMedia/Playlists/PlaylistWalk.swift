/// The way through a playlist's entries as they are tried, a pure value: which entry comes next,
/// the entries of a playlist that an entry turns out to be (one level deep: they come before
/// the entries after it), and the playlists not followed (one already opened, such as two
/// playlists listing each other, or one nested deeper). What happens to an entry (it played,
/// it failed) is its owner's business: it asks for the next one until one plays.
///
///     var walk = PlaylistWalk(root: .url("http://host/radio.pls"))
///     try walk.follow(playlist, at: .url("http://host/radio.pls"), base: effectiveURL)
///     while let entry = walk.next() { ... }   // until one plays
package struct PlaylistWalk: Hashable, Sendable {
    /// An entry to try.
    package struct Entry: Hashable, Sendable {
        /// The entry as written in its playlist.
        package var entry: PlaylistEntry
        /// Where it points, resolved against its playlist's location; a failure for an entry
        /// that points nowhere the player can go.
        package var location: Result<AudioLocation, PlaylistError>
        /// 0 for an entry of the first playlist, 1 for one of a playlist it lists.
        package var depth: Int

        /// The location's URL or path, else the entry as written: for messages and events.
        package var text: String {
            (try? location.get())?.text ?? entry.target
        }
    }

    /// How deep playlists are followed: the first one, and those its entries are.
    package static let maximumDepth = 1

    /// The first playlist: the URL or file given.
    package let root: AudioLocation
    /// The entries still to try, the next one last.
    private var pending: [Entry] = []
    /// The entry tried last, nil before the first.
    package private(set) var current: Entry?
    /// Entries handed out by `next()`.
    package private(set) var tried = 0
    /// The playlists opened so far: where they were asked for and where they answered from.
    private var opened: Set<AudioLocation> = []

    /// A walk starting at the playlist at `root`.
    package init(root: AudioLocation) {
        self.root = root
    }

    /// The playlist found where the walk is (the root before any entry was tried, else the
    /// current entry), read from `location` and answered from `base` (its final URL, after
    /// redirects; the same for a file): its entries come next, resolved against `base`. Throws
    /// `.notFollowed` for a playlist opened before (playlists that list each other) or one
    /// nested deeper than `maximumDepth`.
    package mutating func follow(_ playlist: Playlist, at location: AudioLocation, base: AudioLocation) throws(PlaylistError) {
        let places: Set = [Self.key(location), Self.key(base)]
        guard opened.isDisjoint(with: places) else {
            throw PlaylistError(.notFollowed, "a playlist already opened: playlists that list each other are not followed")
        }
        let depth = current.map { $0.depth + 1 } ?? 0
        guard depth <= Self.maximumDepth else {
            throw PlaylistError(.notFollowed, "a playlist listed by a playlist that a playlist lists: only one level is followed")
        }
        opened.formUnion(places)
        let entries = playlist.entries.map { entry in
            Entry(entry: entry, location: Result { () throws(PlaylistError) in try entry.location(in: base) }, depth: depth)
        }
        pending += entries.reversed()
    }

    /// The next entry to try (it becomes `current`), nil when none is left.
    package mutating func next() -> Entry? {
        current = pending.popLast()
        if current != nil { tried += 1 }
        return current
    }

    /// A location as playlists are compared: a file by its normalized path.
    private static func key(_ location: AudioLocation) -> AudioLocation {
        if case .file(let path) = location { return .file(path: PlaylistEntry.normalized(path)) }
        return location
    }
}
