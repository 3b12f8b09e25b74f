extension DownloadStateMachine.Phase {
    /// The body fetched so far, in the phases that have one.
    var body: DownloadStateMachine.Body? {
        switch self {
        case .probing: nil
        case .streaming(let stream): .streamed(stream)
        case .segmented(let map): .segmented(map)
        case .finishing(let body), .done(let body): body
        }
    }

    /// Which phase, without what it holds.
    var stage: DownloadStateMachine.Stage {
        switch self {
        case .probing: .probing
        case .streaming: .streaming
        case .segmented: .segmented
        case .finishing: .finishing
        case .done: .done
        }
    }
}

extension DownloadStateMachine {
    /// The phases by name, for comparisons and tests.
    enum Stage: Hashable, Sendable, CaseIterable {
        case probing, streaming, segmented, finishing, done
    }

    /// The piece map of a segmented download (also once it is finishing or done); nil for a
    /// stream or before the first answer.
    var map: PieceMap? {
        if case .segmented(let map) = phase.body { map } else { nil }
    }

    /// What the one connection of a download without ranges wrote (also once it is finishing
    /// or done); nil for a segmented download or before the first answer.
    var stream: Stream? {
        if case .streamed(let stream) = phase.body { stream } else { nil }
    }

    /// Changes the piece map while segments are fetched, in place (the phase lets go of it
    /// meanwhile, so the map's storage is never copied); nil in any other phase.
    mutating func changeMap<Result>(_ change: (inout PieceMap) -> Result) -> Result? {
        guard case .segmented(var map) = phase else { return nil }
        phase = .probing
        defer { phase = .segmented(map) }
        return change(&map)
    }

    /// Changes what the one connection wrote while it streams, in place; nil in any other phase.
    @discardableResult
    mutating func changeStream<Result>(_ change: (inout Stream) -> Result) -> Result? {
        guard case .streaming(var stream) = phase else { return nil }
        phase = .probing
        defer { phase = .streaming(stream) }
        return change(&stream)
    }
}
