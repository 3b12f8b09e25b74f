import SlipstreamDownload

/// Listening while it downloads, for an HLS stream that has ended (VOD): the player takes its
/// segments from an `HLSDownload` of the stream, which fetches them in parallel ahead of it.
extension AudioStreamer {
    /// Plays the HLS stream at `url` while `download` (an `HLSDownloader` download of the same
    /// URL) keeps it: the player takes each segment from the download, which fetches the one
    /// asked for before the others still waiting (a seek moves it there), and fetches itself
    /// only what the download cannot give (the first segment, while the download has not got
    /// it yet). The download joins its file only once this player is done (its final state),
    /// since the join removes the segments' files; pausing or stopping the player leaves the
    /// download running: it is the caller's to await or cancel.
    public convenience init(
        hlsDownload download: HLSDownload, url: String, configuration: AudioStreamerConfiguration = AudioStreamerConfiguration()
    ) {
        var configuration = configuration
        configuration.keptHLS = download.kept
        self.init(url: url, download: nil, configuration: configuration, engine: nil)
    }
}
