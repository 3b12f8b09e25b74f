import Glibc
import SlipstreamDownload

/// Listening while it downloads: a player that reads a running download, so that the whole
/// file is kept while it plays.
extension AudioStreamer {
    /// Plays `download`, the download of `url`, while it runs: every connection of the player is
    /// a `DownloadReader` (`Download.reader(at:bytesPerSecond:)`), so the audio starts with the
    /// first bytes written, a seek into bytes written plays at once with no request, and a seek
    /// elsewhere moves the download's window there (it fetches the bytes ahead of the player
    /// first, about 30 seconds at the stream's bit rate, while the rest of the file keeps
    /// downloading). Pausing or stopping the player leaves the download running: it is the
    /// caller's to await or cancel. For a file the server serves in ranges: a live stream never
    /// ends (record one with `AudioStreamerConfiguration.recording`).
    public convenience init(download: Download, url: String, configuration: AudioStreamerConfiguration = AudioStreamerConfiguration()) {
        self.init(url: url, download: download, configuration: configuration, engine: nil)
    }

    /// Plays `url` while `downloader` downloads it whole into `path` (segmented and resumable
    /// as `Downloader.start(_:to:)` is: `path.part` and its resume records until every byte is
    /// there and checked, then renamed to `path`), through `init(download:url:configuration:)`;
    /// `download` is the download. When `path` is complete already (it exists, with no
    /// `path.part` beside it), plays the file, with no network (`download` is nil). Throws when
    /// the download cannot start.
    public convenience init(
        url: String, keeping path: String, downloader: Downloader = Downloader(),
        configuration: AudioStreamerConfiguration = AudioStreamerConfiguration()
    ) throws(DownloadError) {
        if Self.isComplete(path) {
            self.init(url: path, download: nil, configuration: configuration, engine: nil)
        } else {
            let download = try downloader.start(url, to: .file(path))
            self.init(url: url, download: download, configuration: configuration, engine: nil)
        }
    }

    /// Whether `path` is a download done: the file is there and no `.part` of it.
    static func isComplete(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path + ".part", F_OK) != 0
    }
}
