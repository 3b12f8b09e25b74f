#if canImport(Glibc)
import Glibc
#endif
import SlipstreamDownload

/// `slipstream get`: one download with a status line on a terminal.
enum GetCommand {
    static func run(_ arguments: [String]) async -> ExitStatus {
        let options: GetOptions
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
        let url = options.url!
        let downloader = Downloader(configuration: options.configuration)
        let started = ContinuousClock.now
        let download: Download
        do {
            download = try downloader.start(url, to: options.output.map(DownloadDestination.file) ?? .folder("."))
        } catch {
            Terminal.error(error.message)
            return ExitStatus(error)
        }

        let showBar = !options.quiet && Terminal.isTerminal(STDERR_FILENO)
        let bar = Task {
            guard showBar else { return }
            while !Task.isCancelled {
                Terminal.statusLine(Formatting.progressLine(download.progress))
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        do {
            let result = try await download.value
            bar.cancel()
            await bar.value
            if showBar { Terminal.statusLine(Formatting.progressLine(download.progress), final: true) }
            let elapsed = started.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if !options.quiet {
                Terminal.message(Formatting.summary(result, seconds: seconds, connections: options.configuration.connections))
            }
            return .success
        } catch {
            bar.cancel()
            await bar.value
            if showBar { Terminal.clearStatusLine() }
            Terminal.error(error.message)
            return ExitStatus(error)
        }
    }
}
