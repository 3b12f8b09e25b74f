extension DownloadQueue {
    /// A download that has left the queue: finished, failed or cancelled.
    public struct Outcome: Sendable {
        /// Its id.
        public var id: ID
        /// What it downloaded.
        public var request: Request
        /// The finished file, or the error that stopped it (`.cancelled` after `cancel`; its
        /// `resumableFile` names what a resume starts from).
        public var result: Result<DownloadResult, DownloadError>
        /// For one that failed after it ran: its progress when it stopped (its size, once the
        /// server told it, and the bytes written), no longer moving.
        public var progress: DownloadProgress?
        /// For one that failed after it ran: its pieces when it stopped, without connections.
        public var details: DownloadDetails?

        /// The event that told it: `.finished` or `.failed`.
        var event: DownloadQueueEvent {
            switch result {
            case .success(let result): .finished(id, result)
            case .failure(let error): .failed(id, error)
            }
        }
    }

    /// The downloads that have ended (finished, failed or cancelled), oldest first: the last
    /// `configuration.keptOutcomes` of them, until `removeOutcomes()`.
    public var outcomes: [Outcome] {
        state.withLock { $0.history.outcomes }
    }

    /// Forgets the outcomes kept so far (see `outcomes`) and returns them: a queue that runs
    /// for long can take them as it goes.
    @discardableResult
    public func removeOutcomes() -> [Outcome] {
        state.withLock { $0.history.removeOutcomes() }
    }

    /// Forgets the kept outcome of download `id` (aria2's `removeDownloadResult`) and returns
    /// it; nil when none is kept.
    @discardableResult
    public func removeOutcome(of id: ID) -> Outcome? {
        state.withLock { $0.history.removeOutcome(of: id) }
    }
}
