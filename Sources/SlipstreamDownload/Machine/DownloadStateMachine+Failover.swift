import SlipstreamHTTP

extension DownloadStateMachine {
    /// The sources whose first request failed since the last wait for a retry.
    struct ProbeRound: Sendable {
        var failed: Set<Int> = []
        /// The shortest `Retry-After` among the failures of those to be asked again, in
        /// seconds (0 where one gave none).
        var retryAfter = Double.infinity
    }

    /// What a failed first request leads to (`probeFailed`).
    enum ProbeFailover {
        /// The next source is asked at once: these actions.
        case next([Action])
        /// Every usable source failed since the last wait: the download's retry rule decides,
        /// with the shortest `Retry-After` they asked; `hopeless` when no source is left to ask.
        case roundOver(retryAfter: Double?, hopeless: Bool)
    }

    /// The URL requests to source `index` go to: the download's own for the first (a probe
    /// asks it again, never where a redirect led), otherwise the mirror's (the effective URL of
    /// a mirror whose answer was taken).
    func sourceURL(_ index: Int) -> String {
        index == 0 ? settings.url : mirrors[index].url
    }

    /// The first request, to source `source`, failed (no answer, an unusable one, or a body cut
    /// before its first byte): the next source not asked since the last wait is asked at once.
    ///
    /// Every failure falls over: a refused connection, a name that does not resolve, a TLS
    /// failure, a timeout or stall, an error status (404, 410, 403, 5xx...), an answer that breaks
    /// the range rules. Whichever it is, a mirror may not share it, and a user who gave mirrors
    /// wants the file from any of them rather than a wait on the one that failed. The retries
    /// and their growing delays come only once every source failed (a round), so each source
    /// gets as many tries as a download without mirrors gives its URL, and nothing waits while
    /// a source is untried. A source whose failure retrying cannot change (a 4xx but 408 and
    /// 429, TLS, a broken range answer) is never asked again.
    mutating func probeFailed(_ source: Int, _ failure: DownloadError, cause: HTTPError?, at now: Double) -> ProbeFailover {
        if source == 0, firstProbeFailure == nil { firstProbeFailure = failure }
        mirrors[source].failures += 1
        mirrors[source].probeFailure = failure.message
        if let cause, !cause.isRetryable { mirrors[source].dropped = true }
        probeRound.failed.insert(source)
        // A wait is asked of those to be asked again.
        if !mirrors[source].dropped { probeRound.retryAfter = min(probeRound.retryAfter, cause?.retryAfter ?? 0) }
        let restart = resetToProbing()
        if let next = mirrors.indices.first(where: { !mirrors[$0].dropped && !probeRound.failed.contains($0) }) {
            reference = next
            return .next(restart + [.emit(.notice("\(failure.message); trying \(sourceURL(next)) instead")), launchProbe(at: now)])
        }
        let retryAfter = probeRound.retryAfter
        probeRound = ProbeRound()
        reference = mirrors.indices.first { !mirrors[$0].dropped } ?? 0
        return .roundOver(retryAfter: retryAfter > 0 && retryAfter.isFinite ? retryAfter : nil, hopeless: mirrors.allSatisfy(\.dropped))
    }

    /// What the error adds to the download's URL's failure once every source failed: what
    /// each mirror's last first request said.
    var mirrorsFailedToo: String {
        let said = mirrors.indices.dropFirst().compactMap { mirrors[$0].probeFailure }
        let them = mirrors.count == 2 ? "its mirror" : "its \(mirrors.count - 1) mirrors"
        return "; \(them) failed too" + (said.isEmpty ? "" : ": " + said.joined(separator: "; "))
    }

    /// Once an answer is taken, the sources whose first request failed get no connections: a
    /// dead URL would hold a range and a connection each time it was tried, until its connect
    /// or stall timeout.
    mutating func dropSourcesThatFailedTheProbe() {
        for index in mirrors.indices where index != reference && mirrors[index].failures > 0 {
            mirrors[index].dropped = true
        }
        probeRound = ProbeRound()
    }

    /// Why the answer of another source than the one the record names cannot resume a download
    /// whose record has neither ETag nor Last-Modified (its size is trusted only from the URL
    /// it was made with); nil if it can.
    var unprovableResume: String? {
        guard let record = resume?.record, record.etag == nil, record.lastModified == nil,
            sourceURL(reference).redactingLogins != record.url
        else { return nil }
        return "the resume record has no ETag or Last-Modified to prove that this source serves the same file"
    }
}
