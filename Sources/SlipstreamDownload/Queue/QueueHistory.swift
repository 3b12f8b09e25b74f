/// What a queue has told of its downloads, kept so that a reader that starts late can start
/// from where each download is (as a download's own events replay its history): for each
/// download in the queue its last lifecycle event and, once started, its latest progress; for
/// those that ended, their outcomes, the last `keptOutcomes` of them. Pure: the queue tells it
/// each event it tells its readers, under the same lock, so a replay and the events after it
/// neither miss nor repeat one.
struct QueueHistory: Sendable {
    /// What was told of a download still in the queue.
    private struct Told: Sendable {
        /// `.queued`, `.paused` or `.started`: the last of these.
        var lifecycle: DownloadQueueEvent
        /// The latest progress since it started.
        var progress: DownloadProgress?
    }

    private var told: [DownloadQueue.ID: Told] = [:]
    /// The downloads that ended, oldest first.
    private(set) var outcomes: [DownloadQueue.Outcome] = []
    /// The most outcomes kept (at least 0).
    let keptOutcomes: Int

    init(keptOutcomes: Int) {
        self.keptOutcomes = max(keptOutcomes, 0)
    }

    /// Takes in `event`, told of a download that makes `request`; `last`, for an end, is where
    /// the download was when it ended.
    mutating func tell(
        _ event: DownloadQueueEvent, request: DownloadQueue.Request,
        last: (progress: DownloadProgress, details: DownloadDetails)? = nil
    ) {
        let id = event.id
        switch event {
        case .queued, .paused, .started:
            told[id] = Told(lifecycle: event)
        case .progress(_, let progress):
            if case .started? = told[id]?.lifecycle { told[id]?.progress = progress }
        case .retrying, .notice:
            break
        case .finished(_, let result):
            end(DownloadQueue.Outcome(id: id, request: request, result: .success(result)))
        case .failed(_, let error):
            end(
                DownloadQueue.Outcome(
                    id: id, request: request, result: .failure(error), progress: last?.progress, details: last?.details))
        }
    }

    /// Forgets the outcomes kept so far, and returns them.
    mutating func removeOutcomes() -> [DownloadQueue.Outcome] {
        defer { outcomes = [] }
        return outcomes
    }

    /// Forgets the outcome of download `id`, and returns it (nil when none is kept).
    mutating func removeOutcome(of id: DownloadQueue.ID) -> DownloadQueue.Outcome? {
        guard let index = outcomes.firstIndex(where: { $0.id == id }) else { return nil }
        return outcomes.remove(at: index)
    }

    /// The events that bring a reader to where every download is (or only download `id`), in
    /// the order the downloads were added: `.finished` or `.failed` for one whose outcome is
    /// kept; `.queued` or `.paused` for one waiting; `.started`, then its latest `.progress`,
    /// for one running.
    func replay(of id: DownloadQueue.ID? = nil) -> [DownloadQueueEvent] {
        var ended = outcomes.map { ($0.id, [$0.event]) }
        var current = told.map { id, told in
            (id, [told.lifecycle] + (told.progress.map { [DownloadQueueEvent.progress(id, $0)] } ?? []))
        }
        if let id {
            ended = ended.filter { $0.0 == id }
            current = current.filter { $0.0 == id }
        }
        return (ended + current).sorted { $0.0 < $1.0 }.flatMap(\.1)
    }

    private mutating func end(_ outcome: DownloadQueue.Outcome) {
        told[outcome.id] = nil
        guard keptOutcomes > 0 else { return }
        if outcomes.count >= keptOutcomes { outcomes.removeFirst(outcomes.count - keptOutcomes + 1) }
        outcomes.append(outcome)
    }
}
