#if canImport(Glibc)
import Glibc
#endif
import SlipstreamAudio
import SlipstreamDownload
import SlipstreamHTTP

/// `play URL --keep FILE`: the URL plays while the whole file downloads into FILE over several
/// connections (`AudioStreamer(url:keeping:downloader:configuration:)`), resumable as `get`;
/// FILE once complete plays with no network. What cannot be kept whole (a live stream, a
/// playlist, a server without ranges) is said in one line and plays as without `--keep`.
enum PlayKeeping {
    /// The player for `options` (with `--keep`): of the download, of FILE when complete, or of
    /// the URL alone when it cannot be kept (told on standard error unless `quiet`). The
    /// download is given to `started` as soon as it starts (to be cancelled by a signal while
    /// its first answer is awaited).
    static func streamer(
        _ options: PlayOptions, path: String, configuration: AudioStreamerConfiguration, access: TransferAccess,
        started: (Download) -> Void
    ) async throws(CommandError) -> AudioStreamer {
        let url = options.target!
        let plain = { AudioStreamer(url: url, configuration: configuration) }
        if isPlaylistName(url) {
            tell(options, "\(url) is a playlist")
            return plain()
        }
        let streamer: AudioStreamer
        do {
            streamer = try AudioStreamer(
                url: url, keeping: path, downloader: options.keepingDownloader(access: access),
                configuration: configuration)
        } catch {
            throw CommandError(status: ExitStatus(error), message: error.advice)
        }
        guard let download = streamer.download else { return streamer }
        started(download)
        var info: DownloadInfo?
        var failure: DownloadError?
        for await event in download.events {
            if case .started(let started) = event { info = started }
            if case .failed(let error) = event { failure = error }
            if info != nil || failure != nil { break }
        }
        // A station that answers as an old SHOUTcast server does (`ICY 200 OK`: refused as a
        // protocol libcurl's downloads do not speak) is no file to download, but plays; an
        // error status or a local failure is the command's.
        if let failure, ![.network, .liveStream, .invalidURL].contains(failure.code) {
            throw CommandError(status: ExitStatus(failure), message: failure.advice)
        }
        let reason: String? =
            if let failure {
                "\(url) cannot be downloaded (\(failure.message))"
            } else if info?.totalBytes == nil {
                "\(url) gives no size (it is a live stream)"
            } else if info?.segmented == false {
                "\(url)'s server serves no ranges"
            } else if await isPlaylist(download) {
                "\(url) is a playlist"
            } else {
                nil
            }
        guard let reason else {
            if let info, info.resumedBytes > 0, !options.quiet {
                Terminal.message("resuming \(info.path): \(Formatting.bytes(info.resumedBytes)) already there")
            }
            return streamer
        }
        download.cancelAndRemoveFiles()
        // A playlist may be whole already, renamed into place: it goes too.
        if let kept = try? await download.value { unlink(kept.path) }
        tell(options, reason)
        return plain()
    }

    /// `play URL.m3u8 --keep FILE`: the HLS stream plays while an `HLSDownload` fetches its
    /// segments in parallel ahead of the player (which takes them from it) into FILE's part
    /// folder, joined into FILE once the player is done; resumable as `get --hls`. Nil when
    /// `url` names no HLS playlist. A FILE complete already is said, and the stream plays
    /// without keeping (the joined stream may be MPEG-TS, which plays only as HLS).
    static func hlsStreamer(
        _ options: PlayOptions, path: String, configuration: AudioStreamerConfiguration, access: TransferAccess
    ) throws(CommandError) -> (streamer: AudioStreamer, download: HLSDownload?)? {
        let url = options.target!
        guard isHLSName(url) else { return nil }
        if Glibc.access(path, F_OK) == 0, Glibc.access(path + ".hls.part", F_OK) != 0 {
            tell(options, "\(path) is kept already")
            return (AudioStreamer(url: url, configuration: configuration), nil)
        }
        var hls = HLSDownloadConfiguration()
        hls.variant = configuration.hlsVariant
        hls.download = options.keepingDownloader(access: access).configuration
        hls.download.checksum = nil
        let download: HLSDownload
        do throws(DownloadError) {
            download = try HLSDownloader(configuration: hls).start(url, to: path)
        } catch {
            throw CommandError(status: ExitStatus(error), message: error.advice)
        }
        return (AudioStreamer(hlsDownload: download, url: url, configuration: configuration), download)
    }

    /// Ends an HLS download kept while it played, as `finish(_:path:state:signal:quiet:status:)`
    /// ends a file's: played to the end, the rest is fetched and joined into FILE; stopped, its
    /// part folder stays for the next run.
    static func finish(
        _ download: HLSDownload, path: String, state: AudioStreamerState, signal: Int32?, quiet: Bool, status: ExitStatus
    ) async -> ExitStatus {
        if state != .done || signal != nil { download.cancel() }
        let outcome: Result<(path: String, bytes: Int64), DownloadError>
        do throws(DownloadError) {
            let result = try await download.value
            outcome = .success((result.path, result.bytes))
        } catch {
            outcome = .failure(error)
        }
        return report(outcome, quiet: quiet, status: status) { error in
            "what was fetched is kept in \(error.resumableFile ?? path + ".hls.part"): play it again with --keep \(path) to resume"
        }
    }

    /// Says how a kept download ended: the file kept, or (stopped) where what it fetched is
    /// kept, as `stopped` words it; a failure is told as an error. The exit status, from
    /// `status` (playback's).
    private static func report(
        _ outcome: Result<(path: String, bytes: Int64), DownloadError>, quiet: Bool, status: ExitStatus,
        stopped: (DownloadError) -> String
    ) -> ExitStatus {
        switch outcome {
        case .success(let kept):
            if !quiet { Terminal.message("kept \(kept.path): \(Formatting.bytes(kept.bytes))") }
            return status
        case .failure(let error) where error.code != .cancelled:
            Terminal.error(error.advice)
            return status == .success ? ExitStatus(error) : status
        case .failure(let error):
            if !quiet { Terminal.message(stopped(error)) }
            return status
        }
    }

    /// Whether `url`'s path names an HLS playlist (`.m3u8`).
    private static func isHLSName(_ url: String) -> Bool {
        url.prefix { $0 != "?" && $0 != "#" }.lowercased().hasSuffix(".m3u8")
    }

    /// Tells why `--keep` keeps nothing.
    private static func tell(_ options: PlayOptions, _ reason: String) {
        if !options.quiet { Terminal.message("slipstream: --keep: \(reason): playing it without keeping it (--record records it)") }
    }

    /// Whether `url`'s path names a playlist (M3U, HLS, PLS, XSPF).
    private static func isPlaylistName(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }.lowercased()
        return [".m3u", ".m3u8", ".pls", ".xspf"].contains { path.hasSuffix($0) }
    }

    /// Whether the download's first bytes are a playlist's (M3U, PLS, XSPF).
    private static func isPlaylist(_ download: Download) async -> Bool {
        let reader = download.reader()
        defer { reader.close() }
        guard let head = try? await reader.read(upTo: 16) else { return false }
        let text = String(decoding: head, as: UTF8.self).lowercased()
        return ["#extm3u", "[playlist]", "<?xml", "<playlist"].contains { text.hasPrefix($0) }
    }

    /// Ends the download after playback ended in `state` (a `signal` caught or not): played to
    /// the end, it downloads the rest and says what it kept; stopped, it keeps what it has for
    /// the next run (unless it is complete already). The exit status, from `status` (playback's).
    static func finish(
        _ download: Download, path: String, state: AudioStreamerState, signal: Int32?, quiet: Bool, status: ExitStatus
    ) async -> ExitStatus {
        if state != .done || signal != nil {
            download.cancel()
        } else if !quiet, download.progress.fractionCompleted != 1 {
            Terminal.message("slipstream: played to the end; downloading the rest of \(path)")
        }
        let outcome: Result<(path: String, bytes: Int64), DownloadError>
        do throws(DownloadError) {
            let result = try await download.value
            outcome = .success((result.path, result.bytes))
        } catch {
            outcome = .failure(error)
        }
        return report(outcome, quiet: quiet, status: status) { error in
            let progress = download.progress
            return "\(Formatting.bytes(progress.completedBytes)) of \(progress.totalBytes.map(Formatting.bytes) ?? "?") kept in "
                + "\(error.resumableFile ?? path + ".part"): play it again with --keep \(path) to resume"
        }
    }
}
