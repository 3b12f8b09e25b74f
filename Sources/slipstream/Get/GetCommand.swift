#if canImport(Glibc)
import Glibc
#endif
import SlipstreamAudio
import SlipstreamDownload
import Synchronization

/// `slipstream get`: one download with a status line on a terminal, resumable after Ctrl-C.
enum GetCommand {
    static func run(_ arguments: [String]) async -> ExitStatus {
        var options: GetOptions
        do {
            options = try GetOptions.parse(arguments)
        } catch {
            Terminal.usageError(error, usage: GetOptions.usage)
            return .usage
        }
        if options.help {
            print(GetOptions.usage)
            return .success
        }
        do throws(CommandError) {
            options.configuration.access = try options.access.makeAccess()
            try options.remote.apply(to: &options.configuration.access)
        } catch {
            Terminal.error(error.message)
            return error.status
        }
        return await download(options)
    }

    /// Runs the download (or the queue) `options` ask for.
    private static func download(_ options: GetOptions) async -> ExitStatus {
        if options.isMany { return await QueueCommand.run(options) }
        if options.hls { return await HLSGetCommand.run(options) }
        let started = ContinuousClock.now
        // Trapped before the download starts, so that no signal can kill it half-begun.
        let running = Mutex<Download?>(nil)
        let trap = SignalTrap { running.withLock { $0 }?.cancel() }
        let download: Download
        do {
            download = try Downloader(configuration: options.configuration)
                .start(options.url!, to: try destination(options))
        } catch let error as CommandError {
            Terminal.error(error.message)
            return error.status
        } catch let error as DownloadError {
            Terminal.error(error.advice)
            return ExitStatus(error)
        } catch {
            preconditionFailure("\(error)")
        }
        running.withLock { $0 = download }
        if trap.caughtSignal != nil { download.cancel() }

        let showBar = !options.quiet && Terminal.isTerminal(STDERR_FILENO)
        let listening = options.play.map { GetPlaying(download: download, url: options.url!, output: $0, showBar: showBar) }
        let bar = Task {
            guard showBar else { return }
            while !Task.isCancelled {
                Terminal.statusLine(Formatting.progressLine(download.progress))
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let messages = Task {
            var path = ""
            for await event in download.events {
                switch event {
                case .started(let info):
                    path = info.path
                    if info.resumedBytes > 0, !options.quiet {
                        Terminal.message(
                            "resuming \(path): \(Formatting.bytes(info.resumedBytes)) already there",
                            over: showBar)
                    }
                case .notice(let text) where !options.quiet:
                    Terminal.message("slipstream: \(text)", over: showBar)
                case .retrying(let error, let attempt, let delay) where !options.quiet:
                    Terminal.message(
                        "slipstream: \(error.message); retry \(attempt) in "
                            + "\(Formatting.fixed(delay.seconds, places: 1)) s", over: showBar)
                default:
                    break
                }
            }
            return path
        }
        let outcome: Result<DownloadResult, DownloadError>
        do {
            outcome = .success(try await download.value)
        } catch {
            outcome = .failure(error)
        }
        await listening?.finish(downloaded: outcome)
        bar.cancel()
        await bar.value
        let path = await messages.value
        let hooks = options.hooks
        defer { hooks.waitForAll() }
        switch outcome {
        case .success(let result):
            hooks.downloadEnded(path: result.path, url: options.url!, status: .success)
            if showBar { Terminal.statusLine(Formatting.progressLine(download.progress), final: true) }
            let elapsed = started.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if !options.quiet {
                Terminal.message(Formatting.summary(result, seconds: seconds, connections: options.configuration.connections))
            }
            return .success
        case .failure(let error):
            if showBar { Terminal.clearStatusLine() }
            let interrupted = trap.caughtSignal.map { $0 == SIGINT ? ExitStatus.interrupted : .terminated }
            // Failed before its first answer: the path it was given (`-o`), else the error's.
            hooks.downloadEnded(
                path: path.isEmpty ? options.output ?? error.path ?? "" : path, url: options.url!,
                status: error.code == .cancelled ? interrupted ?? ExitStatus(error) : ExitStatus(error), message: error.message)
            // The reader of `-o -` had enough: no complaint, as for a program SIGPIPE stops.
            if error.code == .outputClosed { return .outputClosed }
            if let signal = trap.caughtSignal, error.code == .cancelled {
                let progress = download.progress
                if options.output == "-" {
                    Terminal.error(
                        "\(signal == SIGINT ? "interrupted" : "terminated") after "
                            + "\(Formatting.bytes(progress.completedBytes)) on standard output (nothing kept to resume)")
                    return signal == SIGINT ? .interrupted : .terminated
                }
                // Resuming is offered only where the download kept a `.part` with its records.
                guard let kept = error.resumableFile else {
                    Terminal.error("\(signal == SIGINT ? "interrupted" : "terminated"); nothing kept to resume")
                    return signal == SIGINT ? .interrupted : .terminated
                }
                Terminal.error(
                    "\(signal == SIGINT ? "interrupted" : "terminated"); "
                        + "\(Formatting.bytes(progress.completedBytes)) of "
                        + "\(progress.totalBytes.map(Formatting.bytes) ?? "?") kept in \(kept): "
                        + "run the same command again to resume")
                return signal == SIGINT ? .interrupted : .terminated
            }
            Terminal.error(error.advice)
            return ExitStatus(error)
        }
    }

    /// Where the download goes: `-o` naming a pipe or a device (`/dev/null`) is written to in
    /// order, as curl does, never replaced; what only a file can have is refused for it.
    private static func destination(_ options: GetOptions) throws(CommandError) -> DownloadDestination {
        guard let output = options.output, output != "-", let descriptor = try OutputPath.openStream(output) else {
            return options.destination
        }
        if options.configuration.checksum != nil || options.configuration.timestamping || options.play != nil {
            close(descriptor)
            throw CommandError(status: .usage, message: "\(output) is not a regular file: --checksum, -N and --play need one")
        }
        return .stream(fileDescriptor: descriptor)
    }
}
