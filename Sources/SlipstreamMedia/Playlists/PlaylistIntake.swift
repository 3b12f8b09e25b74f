/// The first bytes of a response, as they arrive in slices of any size: held only while too few
/// to tell a playlist from audio (at most `PlaylistRecognizer.headLimit`), then either handed
/// on as audio (a stream pays nothing more) or, for a playlist, kept with everything after
/// them up to `Playlist.maximumSize`. Pure: the player's probe feeds it.
package struct PlaylistIntake: Sendable {
    /// What to do with the slice just taken.
    package enum Step: Hashable, Sendable {
        /// Nothing yet: the slice is held (too few bytes to tell).
        case hold
        /// Audio (or not a playlist): hand on `held` (the bytes held before the slice, maybe
        /// none), then the slice itself; from now on every slice goes straight on.
        case forward(held: [UInt8])
        /// A playlist: the slice was kept as part of its body.
        case collect
        /// A playlist larger than `Playlist.maximumSize` (`Playlist.tooLarge`): read no more.
        case tooLarge
    }

    /// What the stream turned out to be at its end.
    package enum End: Hashable, Sendable {
        /// Not a playlist: hand on `held`, then the end.
        case forward(held: [UInt8])
        /// A playlist in `format`, whole.
        case playlist(PlaylistFormat, body: [UInt8])
    }

    private enum Phase: Sendable {
        case checking
        case forwarding
        case collecting(PlaylistFormat)
    }

    /// The response's `Content-Type`.
    package let contentType: String?
    /// The URL or file (for its extension).
    package let name: String?
    private var phase = Phase.checking
    /// The bytes held while checking; the playlist's body while collecting.
    private var bytes: [UInt8] = []

    /// An intake for a response served as `contentType` from `name`.
    package init(contentType: String?, name: String?) {
        self.contentType = contentType
        self.name = name
    }

    /// Whether it is collecting a playlist.
    package var isCollecting: Bool {
        if case .collecting = phase { true } else { false }
    }

    /// Takes the next slice of the response.
    package mutating func take(_ slice: UnsafeRawBufferPointer) -> Step {
        switch phase {
        case .forwarding:
            return .forward(held: [])
        case .collecting:
            return collect(slice)
        case .checking:
            let verdict: PlaylistRecognizer.Verdict
            if bytes.isEmpty {
                verdict = PlaylistRecognizer.recognize(slice, isComplete: false, contentType: contentType, name: name)
            } else {
                var head = bytes
                head += slice.prefix(PlaylistRecognizer.headLimit - min(bytes.count, PlaylistRecognizer.headLimit))
                verdict = head.withUnsafeBytes {
                    PlaylistRecognizer.recognize($0, isComplete: false, contentType: contentType, name: name)
                }
            }
            switch verdict {
            case .needMore:
                bytes += slice
                return .hold
            case .notPlaylist:
                phase = .forwarding
                defer { bytes = [] }
                return .forward(held: bytes)
            case .playlist(let format):
                phase = .collecting(format)
                return collect(slice)
            }
        }
    }

    /// The response ended whole.
    package mutating func end() -> End {
        switch phase {
        case .forwarding:
            return .forward(held: [])
        case .collecting(let format):
            return .playlist(format, body: bytes)
        case .checking:
            let verdict = bytes.withUnsafeBytes {
                PlaylistRecognizer.recognize($0, isComplete: true, contentType: contentType, name: name)
            }
            guard case .playlist(let format) = verdict else {
                phase = .forwarding
                return .forward(held: bytes)
            }
            phase = .collecting(format)
            return .playlist(format, body: bytes)
        }
    }

    private mutating func collect(_ slice: UnsafeRawBufferPointer) -> Step {
        guard bytes.count + slice.count <= Playlist.maximumSize else {
            bytes = []
            return .tooLarge
        }
        bytes += slice
        return .collect
    }
}
