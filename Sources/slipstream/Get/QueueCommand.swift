#if canImport(Glibc)
import Glibc
#endif
import SlipstreamDownload
import Synchronization

/// `slipstream get` with several downloads (several URLs, `-i FILE`, `--save-session`): a
/// `DownloadQueue`, shown as a block of status lines on a terminal.
enum QueueCommand {
    /// What the run has seen so far, for the total line and the end.
    private struct Tally {
        var count = 0
        var finished = 0
        /// The failures in the order they came, with their exit statuses.
        var failures: [(message: String, status: ExitStatus)] = []
    }

    /// The tally, shared by the tasks of a run.
    private final class SharedTally: Sendable {
        private let tally = Mutex(Tally())

        func withLock<Value>(_ body: (inout Tally) -> Value) -> Value {
            tally.withLock { body(&$0) }
        }
    }

    static func run(_ options: GetOptions) async -> ExitStatus {
        let started = ContinuousClock.now
        var list = DownloadList(entries: options.urls.map { DownloadList.Entry(urls: [$0]) })
        if let input = options.inputFile {
            do {
                let read = try SessionFile.read(input)
                list.entries += read.entries
                list.isSession = read.isSession
            } catch {
                Terminal.error(error.advice)
                return error.code == .input ? .usage : ExitStatus(error)
            }
        }
        var configuration = DownloadQueue.Configuration()
        configuration.maxConcurrentDownloads = options.jobs
        configuration.connectionsPerHost = options.hostConnections
        configuration.download = options.configuration
        configuration.sessionPath = options.sessionFile
        let queue = DownloadQueue(configuration: configuration)
        let screen = QueueScreen(live: !options.quiet && Terminal.isTerminal(STDERR_FILENO))
        let tally = SharedTally()
        let trap = SignalTrap { Task { await queue.stopAll() } }

        // The reader tells ends, notices and retries; progress is drawn from `queue.downloads`.
        // Quiet, it prints and counts only failures, so it is not woken for anything else (a
        // wake-up per finished download is a thread hand-off each, for nothing to print).
        let quiet = options.quiet
        let events = queue.events { event in
            switch event {
            case .failed: true
            case .finished: !quiet || options.onComplete != nil
            case .notice, .retrying: !quiet
            case .queued, .started, .progress, .paused: false
            }
        }
        let hooks = options.hooks
        let reader = Task {
            await report(events, screen: screen, quiet: options.quiet, tally: tally) { result in
                switch result {
                case .success(let done): hooks.downloadEnded(path: done.path, url: done.url, status: .success)
                case .failure(let error):
                    hooks.downloadEnded(path: error.path ?? "", url: error.url ?? "", status: ExitStatus(error), message: error.message)
                }
            }
        }
        // Every entry goes in paused, and those to run are resumed once all are in: what the
        // queue refuses (a bad URL) is told before any download could fail on its own.
        var folders: Set<String> = []
        var toRun: [DownloadQueue.ID] = []
        for entry in list.entries {
            let folder = entry.dir ?? options.folder ?? "."
            if folders.insert(folder).inserted { makeFolders(folder) }
            let id = add(entry, in: folder, to: queue, options: options, session: list.isSession, screen: screen, tally: tally)
            if let id, !entry.paused { toRun.append(id) }
        }
        toRun.forEach(queue.resume)
        if trap.caughtSignal != nil { await queue.stopAll() }
        let drawer = Task {
            guard screen.live else { return }
            while !Task.isCancelled {
                let totals = tally.withLock { QueueDisplay.Totals(finished: $0.finished, failed: $0.failures.count, count: $0.count) }
                screen.redraw(statusLines(queue.downloads, totals: totals))
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        _ = try? await queue.waitUntilIdle()
        drawer.cancel()
        await drawer.value
        reader.cancel()
        await reader.value
        hooks.waitForAll()
        screen.clear()
        do {
            try await queue.saveSession()
        } catch {
            Terminal.error(error.advice)
        }
        let result = tally.withLock { $0 }
        if let signal = trap.caughtSignal {
            Terminal.error(
                "\(signal == SIGINT ? "interrupted" : "terminated"); the .part files are kept: "
                    + (options.sessionFile.map { "run slipstream get -i \($0) --save-session \($0) to carry on" }
                        ?? "run the same command again to resume"))
            return signal == SIGINT ? .interrupted : .terminated
        }
        guard result.failures.isEmpty else {
            let summary = QueueDisplay.failureSummary(result.failures.map(\.message), of: result.count)
            Terminal.error(summary[0])
            summary.dropFirst().forEach { Terminal.message($0) }
            return result.failures[0].status
        }
        if !options.quiet {
            let elapsed = started.duration(to: .now).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
            Terminal.message("\(result.finished) of \(result.count) downloads done in \(Formatting.fixed(seconds, places: 1)) s")
        }
        return .success
    }

    /// Adds one entry of the list, paused; a session's entry whose file is already complete
    /// (finished after the session was last written) counts as done. Returns the download
    /// added, nil for none.
    private static func add(
        _ entry: DownloadList.Entry, in folder: String, to queue: DownloadQueue, options: GetOptions,
        session: Bool, screen: QueueScreen, tally: SharedTally
    ) -> DownloadQueue.ID? {
        tally.withLock { $0.count += 1 }
        let destination: DownloadDestination = entry.out.map { .file(folder == "." ? $0 : folder + "/" + $0) } ?? .folder(folder)
        if session, case .file(let path) = destination, exists(path), !exists(path + ".part") {
            tally.withLock { $0.finished += 1 }
            if !options.quiet { screen.print("already complete: \(path)") }
            return nil
        }
        let request = DownloadQueue.Request(
            url: entry.urls[0], mirrors: Array(entry.urls.dropFirst()),
            destination: destination, checksum: entry.checksum)
        do {
            return try queue.add(request, paused: true)
        } catch {
            tally.withLock { $0.failures.append((error.advice, ExitStatus(error))) }
            screen.print("slipstream: \(error.advice)")
            return nil
        }
    }

    /// Prints the permanent lines (finished, failed, notices) as the events come, and counts.
    /// Each download's end is also handed to `ended`.
    private static func report(
        _ events: DownloadQueueEvents, screen: QueueScreen, quiet: Bool, tally: SharedTally,
        ended: (Result<DownloadResult, DownloadError>) -> Void
    ) async {
        for await event in events {
            switch event {
            case .finished(_, let result):
                tally.withLock { $0.finished += 1 }
                if !quiet { screen.print(QueueDisplay.finishedLine(result)) }
                ended(.success(result))
            case .failed(_, let error):
                tally.withLock { $0.failures.append((error.advice, ExitStatus(error))) }
                screen.print("slipstream: \(error.advice)")
                ended(.failure(error))
            case .notice(_, let text) where !quiet:
                screen.print("slipstream: \(text)")
            case .retrying(_, let error, let attempt, let delay) where !quiet:
                screen.print("slipstream: \(error.message); retry \(attempt) in \(Formatting.fixed(delay.seconds, places: 1)) s")
            default:
                break
            }
        }
    }

    /// A line per running download, then the total line.
    private static func statusLines(_ downloads: [DownloadQueue.Status], totals: QueueDisplay.Totals) -> [String] {
        let width = Terminal.width
        let running = downloads.filter { $0.phase == .running }
        var totals = totals
        totals.running = running.count
        totals.bytesPerSecond = running.reduce(0) { $0 + ($1.progress?.bytesPerSecond ?? 0) }
        return running.map { QueueDisplay.line($0, width: width) } + [QueueDisplay.totalLine(totals, width: width)]
    }

    /// Creates `path` and the folders above it that are missing (a failure shows when the
    /// download starts).
    private static func makeFolders(_ path: String) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            mkdir(prefix, 0o755)
            prefix += "/"
        }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
