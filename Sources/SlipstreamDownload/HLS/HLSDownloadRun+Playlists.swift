import Glibc

/// The playlists: each downloaded as any file is (headers, login, proxy, retries), into the
/// part folder, then read by `HLSDownloadPlanner`.
extension HLSDownloadRun {
    /// Fetches the playlist at `url` (and the media playlist a master one chooses) and makes
    /// the plan.
    func readPlan() async throws(DownloadError) -> HLSDownloadPlan {
        var url = url
        var variant = false
        // At most two: the planner refuses a master playlist as a variant's.
        while true {
            let (bytes, base) = try await fetchPlaylist(url)
            do throws(HLSDownloadFailure) {
                switch try HLSDownloadPlanner.read(bytes, url: url, base: base, variant: variant, selection: configuration.variant) {
                case .fetchVariant(let next):
                    (url, variant) = (next, true)
                case .plan(let plan):
                    return plan
                }
            } catch {
                throw DownloadError(error.isLive ? .liveStream : .invalidStream, error.message, url: url)
            }
        }
    }

    /// The playlist's bytes and the URL that answered (after redirects).
    private func fetchPlaylist(_ url: String) async throws(DownloadError) -> ([UInt8], String) {
        var configuration = configuration.download
        configuration.overwrite = true
        configuration.resume = false
        configuration.checksum = nil
        configuration.mirrors = []
        // The playlist's own bound, not the configuration's: a playlist no player reads.
        configuration.maxFileSize = Int64(HLSPlaylistParser.maximumSize)
        let path = folder.playlistFile
        let download = try Downloader(engine: engine, configuration: configuration).start(url, to: .file(path))
        do {
            _ = try await download.value
        } catch {
            try checkCancelled()
            if error.code == .tooLarge {
                throw DownloadError(
                    .invalidStream, "\(url): the HLS playlist is larger than \(HLSPlaylistParser.maximumSize >> 20) MiB", url: url)
            }
            throw error
        }
        // The events of a download that has ended: every one of them, then the end.
        var base = url
        for await event in download.events {
            if case .started(let info) = event, !info.effectiveURL.isEmpty {
                base = info.effectiveURL
                break
            }
        }
        let bytes = try await blocking { () throws(DownloadError) in
            defer { unlink(path) }
            guard let bytes = HLSPartFolder.read(path) else { throw FileSystem.error("cannot read \(path)", path: path) }
            return bytes
        }
        return (bytes, base)
    }
}
