#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SlipstreamAudio
import SlipstreamCore
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// `slipstream get --hls URL`: every segment of an HLS stream that has ended, fetched in
/// parallel by a `DownloadQueue`, then joined in order into one file (`HLSJoiner`).
///
/// The output's offsets are unknown until every segment's size is, so each resource (segment
/// file, init section, key) is a download of its own into the folder `FILE.hls.part`, with its
/// own `.part` file and resume records: an interrupted run resumes each unfinished one and
/// fetches no finished one again. The folder keeps the media playlist's URL and its resources'
/// (`plan`): a run that finds another playlist there (or runs with `--no-continue`) empties the
/// folder first, so that two versions of a stream never mix. The join runs on a thread of its
/// own, into `FILE.hls.part/joined`, which is then renamed to FILE.
enum HLSGetCommand {
    /// The progress of a run, shared by its tasks.
    private final class Tally: Sendable {
        struct Counts {
            var finished = 0
            var bytes: Int64 = 0
            var failure: (message: String, status: ExitStatus)?
        }
        let counts = Mutex(Counts())
    }

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
        let url = options.url!
        do throws(CommandError) {
            try OutputPath(output).check("-o", input: nil, replacing: options.configuration.overwrite, writing: .asFile)
        } catch {
            return (error.status, error.message)
        }
        let folder = output + ".hls.part"
        let madeFolder = mkdir(folder, 0o755) == 0
        if !madeFolder, errno != EEXIST {
            return (.disk, "cannot make the folder \(folder): \(String(cString: strerror(errno)))")
        }
        let queueBox = Mutex<DownloadQueue?>(nil)
        let trap = SignalTrap { if let queue = queueBox.withLock({ $0 }) { Task { await queue.stopAll() } } }

        // The playlists, then the plan.
        let plan: HLSDownloadPlan
        do {
            plan = try await readPlan(url, folder: folder, configuration: options.configuration, variant: options.variant.selection)
        } catch {
            // A refused playlist leaves nothing behind: the folder goes if this run made it.
            if madeFolder { removeFolder(folder) }
            return (error.status, error.message)
        }
        if trap.caughtSignal != nil { return interrupted(trap, folder: folder, done: 0, of: plan.resources.count) }
        if prepare(folder, for: plan, resuming: options.configuration.resume), !options.quiet {
            Terminal.message("slipstream: the playlist differs from the one \(folder) was fetched for: starting over")
        }
        let path: @Sendable (Int) -> String = { "\(folder)/\($0)" }
        let missing = plan.resources.indices.filter { !exists(path($0)) }
        if !options.quiet {
            Terminal.message(
                "\(plan.playlistURL): \(plan.segmentCount) segments, \(Formatting.duration(plan.duration)); "
                    + "\(plan.resources.count - missing.count) of \(plan.resources.count) files already here")
        }

        // The resources, over the queue's connections.
        var configuration = DownloadQueue.Configuration()
        configuration.maxConcurrentDownloads = options.configuration.connections
        configuration.connectionsPerHost = options.hostConnections
        configuration.download = options.configuration
        configuration.download.overwrite = false
        // The login goes to the playlist's server only, not to the hosts its segments name.
        configuration.download.loginOrigins = URLOrigin(url).map { [$0] } ?? []
        let queue = DownloadQueue(configuration: configuration)
        queueBox.withLock { $0 = queue }
        let tally = Tally()
        let events = queue.events { event in
            switch event {
            case .finished, .failed: true
            case .retrying: !options.quiet
            default: false
            }
        }
        var resourceOf: [DownloadQueue.ID: Int] = [:]
        for index in missing {
            do {
                resourceOf[try queue.add(.init(url: plan.resources[index].url, destination: .file(path(index))))] = index
            } catch {
                return (ExitStatus(error), "\(plan.describe(resource: index)): \(error.advice)")
            }
        }
        let names = resourceOf
        // Ends once every download has ended (or when cancelled: after a stop, those stopped
        // never end).
        let reader = Task {
            guard !names.isEmpty else { return }
            var ended = 0
            for await event in events {
                switch event {
                case .finished(_, let result):
                    ended += 1
                    tally.counts.withLock {
                        $0.finished += 1
                        $0.bytes += result.bytes
                    }
                    if ended == names.count { return }
                case .failed(let id, let error):
                    ended += 1
                    // The first failure stops the others (their files stay for the next run).
                    let first = tally.counts.withLock { counts in
                        defer {
                            counts.failure =
                                counts.failure ?? (describe(error, of: names[id]!, in: plan), ExitStatus(error))
                        }
                        return counts.failure == nil
                    }
                    if first { Task { await queue.stopAll() } }
                    if ended == names.count { return }
                case .retrying(let id, let error, let attempt, let delay):
                    Terminal.message(
                        "slipstream: \(describe(error, of: names[id]!, in: plan)); retry \(attempt) in "
                            + "\(Formatting.fixed(delay, places: 1)) s")
                default:
                    break
                }
            }
        }
        if trap.caughtSignal != nil { await queue.stopAll() }
        let showBar = !options.quiet && Terminal.isTerminal(STDERR_FILENO)
        let bar = Task {
            guard showBar else { return }
            while !Task.isCancelled {
                let (finished, bytes) = tally.counts.withLock { ($0.finished, $0.bytes) }
                let speed = queue.downloads.reduce(0) { $0 + ($1.progress?.bytesPerSecond ?? 0) }
                Terminal.statusLine(
                    "\(plan.resources.count - missing.count + finished)/\(plan.resources.count) files  "
                        + "\(Formatting.bytes(bytes))  \(Formatting.speed(speed))")
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        _ = try? await queue.waitUntilIdle()
        bar.cancel()
        await bar.value
        // Idle, every event is told: unless something was stopped, each download has ended and
        // the reader ends once it has read them all.
        if trap.caughtSignal != nil || tally.counts.withLock({ $0.failure != nil }) { reader.cancel() }
        await reader.value
        if showBar { Terminal.clearStatusLine() }
        if let failure = tally.counts.withLock({ $0.failure }) {
            return (failure.status, failure.message)
        }
        let done = plan.resources.indices.filter { exists(path($0)) }.count
        if trap.caughtSignal != nil || done < plan.resources.count {
            return interrupted(trap, folder: folder, done: done, of: plan.resources.count)
        }

        // The join, on a thread of its own.
        let joined = folder + "/joined"
        let result: Result<Int64, HLSDownloadFailure> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(HLSDownloadFailure) in try HLSJoiner.join(plan, path: path, to: joined) })
            }
        }
        let size: Int64
        switch result {
        case .success(let bytes): size = bytes
        case .failure(let failure):
            return (failure.isFileProblem ? .disk : .notAudio, failure.message)
        }
        guard place(joined, at: output, replacing: options.configuration.overwrite) else {
            return (.disk, "cannot name the joined file \(output): \(String(cString: strerror(errno)))")
        }
        removeFolder(folder)
        if !options.quiet {
            let elapsed = started.duration(to: .now).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
            Terminal.message(
                "\(output): \(Formatting.bytes(size)), \(plan.segmentCount) segments joined in "
                    + "\(Formatting.fixed(seconds, places: 1)) s")
        }
        return (.success, nil)
    }

    /// "segment 12 (URL): what went wrong", the URL said once.
    private static func describe(_ error: DownloadError, of resource: Int, in plan: HLSDownloadPlan) -> String {
        let prefix = plan.resources[resource].url + ": "
        let message = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
        return plan.describe(resource: resource) + ": " + message
    }

    /// The status and message of an interrupted run.
    private static func interrupted(_ trap: SignalTrap, folder: String, done: Int, of count: Int) -> (ExitStatus, String?) {
        let signal = trap.caughtSignal ?? SIGINT
        let message =
            "\(signal == SIGINT ? "interrupted" : "terminated"); \(done) of \(count) files kept in \(folder): "
            + "run the same command again to resume"
        return (signal == SIGINT ? .interrupted : .terminated, message)
    }

    /// A failure before any segment: its message and exit status.
    private struct Failure: Error {
        var message: String
        var status: ExitStatus
    }

    /// Fetches the playlist at `url` (and the media playlist a master one chooses) and makes
    /// the plan (a variant chosen by `selection`). Each playlist is downloaded as `get` downloads
    /// any file, into `folder`.
    private static func readPlan(
        _ url: String, folder: String, configuration: DownloadConfiguration, variant selection: HLSVariantSelection
    ) async throws(Failure) -> HLSDownloadPlan {
        var url = url
        var variant = false
        // At most two: the planner refuses a master playlist as a variant's.
        while true {
            let (bytes, base) = try await fetchPlaylist(url, to: folder + "/playlist.m3u8", configuration: configuration)
            do throws(HLSDownloadFailure) {
                switch try HLSDownloadPlanner.read(bytes, url: url, base: base, variant: variant, selection: selection) {
                case .fetchVariant(let next):
                    (url, variant) = (next, true)
                case .plan(let plan):
                    return plan
                }
            } catch {
                let advice = error.isLive ? "; record a live one with slipstream play --record DIR" : ""
                throw Failure(message: error.message + advice, status: .notAudio)
            }
        }
    }

    /// The playlist's bytes and the URL that answered.
    private static func fetchPlaylist(_ url: String, to path: String, configuration: DownloadConfiguration) async throws(Failure)
        -> ([UInt8], String)
    {
        var configuration = configuration
        configuration.overwrite = true
        configuration.resume = false
        configuration.checksum = nil
        configuration.maxFileSize = Int64(HLSPlaylistParser.maximumSize)
        let download: Download
        do {
            download = try Downloader(configuration: configuration).start(url, to: .file(path))
        } catch {
            throw Failure(message: error.advice, status: ExitStatus(error))
        }
        let effectiveURL = Task {
            for await event in download.events {
                if case .started(let info) = event { return info.effectiveURL }
            }
            return url
        }
        do {
            _ = try await download.value
        } catch {
            effectiveURL.cancel()
            // The playlist's own bound, not --max-filesize: a playlist no player reads.
            if error.code == .tooLarge {
                throw Failure(
                    message: "\(url): the HLS playlist is larger than \(HLSPlaylistParser.maximumSize >> 20) MiB", status: .notAudio)
            }
            throw Failure(message: error.advice, status: ExitStatus(error))
        }
        let base = await effectiveURL.value
        guard let bytes = readFile(path) else {
            throw Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))", status: .disk)
        }
        unlink(path)
        return (bytes, base.isEmpty ? url : base)
    }

    /// Empties `folder` when its files were fetched for another playlist than `plan`'s (or when
    /// not `resuming`: `--no-continue`), and records `plan`'s there. True when it held the files
    /// of another playlist.
    private static func prepare(_ folder: String, for plan: HLSDownloadPlan, resuming: Bool) -> Bool {
        // The URLs without their passwords, readable by the owner only: the folder holds no secret.
        var record = Array((plan.playlistURL.redactingLogins + "\n").utf8)
        for resource in plan.resources { record += Array((resource.url.redactingLogins + "\n").utf8) }
        let recordPath = folder + "/plan"
        let old = readFile(recordPath)
        if old == record, resuming { return false }
        removeFolder(folder, keepingFolder: true)
        let fd = open(recordPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
        }
        return old != nil && old != record
    }

    /// The name of the output without `-o`: the playlist's name with the extension of its
    /// segments' format guessed from it (`.ts`).
    private static func defaultName(for url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? "stream"
        let stem = last.lastIndex(of: ".").map { String(last[..<$0]) } ?? last
        return (stem.isEmpty ? "stream" : stem) + ".ts"
    }

    /// Gives `file` the name `path`: without `replacing`, only if nothing has it.
    private static func place(_ file: String, at path: String, replacing: Bool) -> Bool {
        if replacing { return rename(file, path) == 0 }
        guard link(file, path) == 0 else { return false }
        unlink(file)
        return true
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The bytes of a small file, or nil.
    private static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += chunk.prefix(count)
        }
    }

    /// Removes the files in `folder` (it holds no folders), and the folder unless `keepingFolder`.
    private static func removeFolder(_ folder: String, keepingFolder: Bool = false) {
        if let directory = opendir(folder) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != ".", name != ".." { unlink(folder + "/" + name) }
            }
            closedir(directory)
        }
        if !keepingFolder { rmdir(folder) }
    }
}
