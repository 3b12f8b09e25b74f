extension AudioInfo {
    /// Where an `AudioInfo`'s bytes came from: the file or URL, what the server said about it,
    /// and how much was read.
    public struct Source: Hashable, Sendable, Codable {
        /// The local file, for a file.
        public var file: String?
        /// The URL as given, for a URL.
        public var url: String?
        /// The URL that answered, when redirects led elsewhere.
        public var effectiveURL: String?
        /// The server's `Content-Type`.
        public var contentType: String?
        /// Total bytes of the file, when known.
        public var size: Int64?
        /// Whether the server answered a range request with the range; `nil` for a file.
        public var acceptsRanges: Bool?
        /// Bytes read from the file or received from the server.
        public var bytesRead: Int64 = 0
        /// Reads (file) or requests (URL) made.
        public var requests = 0
        /// Whether the stream is live (a radio station: no length, no end); it was read for a
        /// few seconds only.
        public var isLive = false
        /// What the radio station says about itself, for a station.
        public var station: StationInfo?
        /// The station's title for what plays now, when it told one while the stream was read.
        public var title: StreamTitle?
        /// The playlist this file or URL is an entry of, when the one given was a playlist
        /// (`bytesRead` and `requests` count the entry's reads).
        public var playlist: PlaylistOrigin?
        /// What the playlists of an HLS stream say, for one.
        public var hls: HLSStream?

        /// A summary of nothing read yet from `location`.
        init(_ location: AudioLocation) {
            file = location.path
            url = location.url
        }
    }
}
