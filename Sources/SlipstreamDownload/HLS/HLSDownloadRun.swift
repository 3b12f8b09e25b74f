import Dispatch
import SlipstreamHTTP
import Synchronization

/// Carries out one HLS download, in the task of its `HLSDownload`: the playlists and the plan
/// (`+Playlists`), the part folder, the resources over a `DownloadQueue` (`+Fetching`), the
/// join. Cancelling the task cancels what is under way: a playlist's download, or the queue
/// (its downloads keep their files). The file work runs on Dispatch's threads, off the Swift
/// concurrency pool.
final class HLSDownloadRun: Sendable {
    let engine: HTTPEngine
    let configuration: HLSDownloadConfiguration
    /// The URL given.
    let url: String
    /// The joined file's path.
    let output: String
    let folder: HLSPartFolder
    let events = EventChannel<HLSDownloadEvent>()
    /// The resources as a player takes them while the download runs.
    let kept = HLSKeptResources()
    /// The latest progress told.
    let progressNow = Mutex(
        HLSDownloadProgress(completedResources: 0, resourceCount: 0, completedBytes: 0, knownBytes: 0, bytesPerSecond: 0))

    init(engine: HTTPEngine, configuration: HLSDownloadConfiguration, url: String, output: String) {
        self.engine = engine
        self.configuration = configuration
        self.url = url
        self.output = output
        folder = HLSPartFolder(output: output)
    }

    /// The latest progress told.
    var progress: HLSDownloadProgress { progressNow.withLock { $0 } }

    /// Tells `progress` and keeps it as the latest.
    func tell(_ progress: HLSDownloadProgress) {
        progressNow.withLock { $0 = progress }
        events.yield(.progress(progress))
    }

    /// The whole download; its last event tells the outcome.
    func run() async -> Result<HLSDownloadResult, DownloadError> {
        let outcome: Result<HLSDownloadResult, DownloadError>
        do throws(DownloadError) {
            outcome = .success(try await download())
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let result):
            kept.ended(DownloadError(.cancelled, "the HLS download of \(url) is over: \(result.path) is joined", url: url))
            events.finish(after: .finished(result))
        case .failure(let error):
            kept.ended(error)
            events.finish(after: .failed(error))
        }
        return outcome
    }

    private func download() async throws(DownloadError) -> HLSDownloadResult {
        let (output, folder, overwrite) = (output, folder, configuration.download.overwrite)
        let madeFolder = try await blocking { () throws(DownloadError) in
            if !overwrite, FileSystem.exists(output) {
                throw DownloadError(.exists, "\(output) already exists", path: output)
            }
            return try folder.make()
        }
        let plan: HLSDownloadPlan
        do throws(DownloadError) {
            plan = try await readPlan()
            try checkCancelled()
        } catch {
            // A refused playlist leaves nothing behind: the folder goes if this run made it.
            if madeFolder { await blocking { folder.remove() } }
            throw error
        }

        let resuming = configuration.download.resume
        let (startingOver, fetched) = await blocking { (folder.prepare(for: plan, resuming: resuming), folder.fetched(of: plan)) }
        if startingOver { events.yield(.notice("the playlist differs from the one \(folder.path) was fetched for: starting over")) }
        let info = HLSDownloadInfo(
            playlistURL: plan.playlistURL, segmentCount: plan.segmentCount, duration: .seconds(plan.duration),
            resourceCount: plan.resources.count, resumedResources: fetched.count, resumedBytes: fetched.values.reduce(0, +),
            partFolder: folder.path)
        events.yield(.planned(info))
        do throws(DownloadError) {
            let fetchedNow = try await fetch(plan.resources.indices.filter { fetched[$0] == nil }, of: plan, info: info)
            // A player still taking the resources' files: the join (which removes them) waits.
            await kept.released()
            try checkCancelled()
            let bytes = try await blocking { () throws(DownloadError) in
                let bytes = try HLSJoiner.join(plan, path: folder.file, to: folder.joinedFile)
                try folder.place(at: output, replacing: overwrite)
                folder.remove()
                return bytes
            }
            return HLSDownloadResult(
                url: url, playlistURL: plan.playlistURL, path: output, bytes: bytes, segmentCount: plan.segmentCount,
                duration: info.duration, fetchedResources: fetchedNow, resumedResources: fetched.count)
        } catch {
            // What was fetched stays for the next run.
            var error = error
            error.resumableFile = folder.path
            throw error
        }
    }

    /// Throws `.cancelled` once the task is cancelled.
    func checkCancelled() throws(DownloadError) {
        guard Task.isCancelled else { return }
        throw DownloadError(.cancelled, "the download of the HLS stream \(url) was cancelled", url: url, path: output)
    }

    /// `body`'s value, computed on a Dispatch thread (it blocks on the disk).
    func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: body()) }
        }
    }

    /// `body`'s value, computed on a Dispatch thread (it blocks on the disk), or its error.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(DownloadError) -> T) async throws(DownloadError) -> T {
        try await blocking { Result(catching: body) }.get()
    }
}
