#if canImport(Glibc)
import Glibc
#endif
import SlipstreamCore
import SlipstreamDownload
import Synchronization

/// `slipstream get --hls URL`: every segment of an HLS stream that has ended, fetched in
/// parallel and joined in order into one file by an `HLSDownloader` (which keeps what it
/// fetched in `FILE.hls.part` until the join, to resume from). This command parses the
/// options, prints the download's events, turns a signal into a cancel, and maps the
/// library's error codes to exit statuses and advice.
enum HLSGetCommand {
    static func run(_ options: GetOptions) async -> ExitStatus {
        let url = options.url!
        let output = options.output ?? (options.folder.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "") + defaultName(for: url)
        let (status, message) = await download(options, to: output)
        if let message { Terminal.error(message) }
        let hooks = options.hooks
        hooks.downloadEnded(path: output, url: url, status: status, message: message)
        hooks.waitForAll()
        return status
    }

    /// The download and the join: the exit status, with the error's message unless it is success.
    private static func download(_ options: GetOptions, to output: String) async -> (ExitStatus, String?) {
        let started = ContinuousClock.now
        do throws(CommandError) {
            try OutputPath(output).check("-o", input: nil, replacing: options.configuration.overwrite, writing: .asFile)
        } catch {
            return (error.status, error.message)
        }
        var configuration = HLSDownloadConfiguration()
        configuration.variant = options.variant.selection
        configuration.maxConcurrentDownloads = options.configuration.connections
        configuration.connectionsPerHost = options.hostConnections
        configuration.download = options.configuration
        let running = Mutex<HLSDownload?>(nil)
        let trap = SignalTrap { running.withLock { $0 }?.cancel() }
        let download: HLSDownload
        do {
            download = try HLSDownloader(configuration: configuration).start(options.url!, to: output)
        } catch {
            return (ExitStatus(error), error.advice)
        }
        running.withLock { $0 = download }
        if trap.caughtSignal != nil { download.cancel() }
        let printer = Task { await show(download.events, quiet: options.quiet) }
        let outcome: Result<HLSDownloadResult, DownloadError>
        do throws(DownloadError) {
            outcome = .success(try await download.value)
        } catch {
            outcome = .failure(error)
        }
        await printer.value
        switch outcome {
        case .success(let result):
            if !options.quiet {
                let elapsed = started.duration(to: .now).seconds
                Terminal.message(
                    "\(output): \(Formatting.bytes(result.bytes)), \(result.segmentCount) segments joined in "
                        + "\(Formatting.fixed(elapsed, places: 1)) s")
            }
            return (.success, nil)
        case .failure(let error) where error.code == .cancelled:
            return interrupted(trap, progress: download.progress, folder: output + ".hls.part")
        case .failure(let error):
            return (ExitStatus(error), advice(for: error))
        }
    }

    /// Prints what happens: the plan, retries and notices as lines, progress in the status line
    /// (on a terminal, at most ten times a second); clears it at the end.
    private static func show(_ events: EventStream<HLSDownloadEvent>, quiet: Bool) async {
        let showBar = !quiet && Terminal.isTerminal(STDERR_FILENO)
        var nextBar = ContinuousClock.now
        for await event in events {
            switch event {
            case .planned(let info) where !quiet:
                Terminal.message(
                    "\(info.playlistURL): \(info.segmentCount) segments, \(Formatting.duration(info.duration.seconds)); "
                        + "\(info.resumedResources) of \(info.resourceCount) files already here")
            case .notice(let text) where !quiet:
                Terminal.message("slipstream: " + text)
            case .retrying(let error, let attempt, let delay) where !quiet:
                Terminal.message("slipstream: \(error.message); retry \(attempt) in \(Formatting.fixed(delay.seconds, places: 1)) s")
            case .progress(let progress) where showBar && ContinuousClock.now >= nextBar:
                nextBar = .now + .milliseconds(100)
                Terminal.statusLine(
                    "\(progress.completedResources)/\(progress.resourceCount) files  \(Formatting.bytes(progress.completedBytes))  "
                        + Formatting.speed(progress.bytesPerSecond))
            default:
                break
            }
        }
        if showBar { Terminal.clearStatusLine() }
    }

    /// The message of a failed download. Before the plan, the error with what to do about it;
    /// after (the part folder keeps what was fetched), the error alone, naming the resource.
    private static func advice(for error: DownloadError) -> String {
        if error.code == .liveStream { return error.message + "; record a live one with slipstream play --record DIR" }
        return error.resumableFile == nil ? error.advice : error.message
    }

    /// The status and message of an interrupted run.
    private static func interrupted(_ trap: SignalTrap, progress: HLSDownloadProgress, folder: String) -> (ExitStatus, String?) {
        let signal = trap.caughtSignal ?? SIGINT
        var message = signal == SIGINT ? "interrupted" : "terminated"
        if progress.resourceCount > 0 {
            message +=
                "; \(progress.completedResources) of \(progress.resourceCount) files kept in \(folder): run the same command again to resume"
        }
        return (signal == SIGINT ? .interrupted : .terminated, message)
    }

    /// The name of the output without `-o`: the playlist's name with the extension of its
    /// segments' format guessed from it (`.ts`).
    private static func defaultName(for url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? "stream"
        let stem = last.lastIndex(of: ".").map { String(last[..<$0]) } ?? last
        return (stem.isEmpty ? "stream" : stem) + ".ts"
    }
}
