/// The arithmetic of a rate limit, with a queue for fairness. A pure value: times are seconds
/// on any clock, passed in.
///
/// Tokens (bytes) accrue at `rate` up to `depth`. A slice of `bytes` is let through when the
/// tokens (or the client's reserve) cover it, or, for a slice larger than the bucket, when the
/// bucket is full (the tokens then go negative and later slices wait until the debt is paid).
/// So over any span of `t` seconds at most `depth + rate × t` bytes pass, plus one slice
/// larger than the bucket.
///
/// Clients that find too few tokens wait in a queue, longest first. While anyone waits, a
/// newcomer queues behind them even if the tokens would cover it, so a connection that wakes
/// more often cannot starve the others. `grant(at:)` hands the tokens to the clients at the
/// head of the queue as they accrue, a `quantum` (or the slice, when larger) to each, and
/// reserves them: the client's next takes draw on its reserve, so it pauses once per quantum
/// rather than once per slice, and every client in turn gets the same quantum.
struct TokenBucket: Sendable {
    struct Waiter: Sendable, Equatable {
        var client: Int
        var bytes: Int
    }

    /// Bytes per second.
    private(set) var rate: Double
    /// The most tokens that can accrue, in bytes.
    private(set) var depth: Double
    /// The tokens a waiting client is granted at its turn (at most `depth`).
    private(set) var quantum: Double
    /// Bytes that may pass now; negative after a slice larger than the bucket.
    private(set) var tokens: Double
    /// Clients waiting for tokens, longest first.
    private(set) var waiting: [Waiter] = []
    /// Tokens set aside for clients whose turn came, until their next `take`.
    private(set) var reserved: [Int: Int] = [:]
    private var updated: Double

    /// A full bucket at `time`; `quantum` defaults to half the depth.
    init(rate: Double, depth: Double, quantum: Double? = nil, at time: Double) {
        precondition(rate > 0 && depth > 0)
        self.rate = rate
        self.depth = depth
        self.quantum = min(quantum ?? depth / 2, depth)
        tokens = depth
        updated = time
    }

    /// Changes the rate from `time` on (what accrued until then, at the old rate, stays, up to
    /// the new depth; a debt stays, to be paid at the new rate). The waiting clients keep their
    /// places; `nextGrant` moves with the rate. `quantum` defaults to half the depth.
    mutating func setRate(_ rate: Double, depth: Double, quantum: Double? = nil, at time: Double) {
        precondition(rate > 0 && depth > 0)
        refill(at: time)
        self.rate = rate
        self.depth = depth
        self.quantum = min(quantum ?? depth / 2, depth)
        tokens = min(tokens, depth)
    }

    /// Whether `client` may pass `bytes` now (the tokens are taken); otherwise it is queued
    /// and must wait for `grant(at:)` to name it.
    mutating func take(_ bytes: Int, client: Int, at time: Double) -> Bool {
        refill(at: time)
        if let held = reserved.removeValue(forKey: client) {
            if held >= bytes {
                if held > bytes { reserved[client] = held - bytes }
                return true
            }
            // The turn is over: what is left of it goes back, and the slice waits like any other.
            add(Double(held))
        }
        let queued = waiting.firstIndex { $0.client == client }
        if queued == 0 || waiting.isEmpty, tokens >= min(Double(bytes), depth) {
            if let queued { waiting.remove(at: queued) }
            tokens -= Double(bytes)
            return true
        }
        if let queued {
            waiting[queued].bytes = bytes
        } else {
            waiting.append(Waiter(client: client, bytes: bytes))
        }
        return false
    }

    /// Sets `bytes` aside for `client`'s next `take` (taken now or earlier from this bucket
    /// but not used, because another limit held the slice back).
    mutating func hold(_ bytes: Int, client: Int) {
        reserved[client, default: 0] += bytes
    }

    /// Reserves tokens for the waiting clients whose turn has come, in order, and returns them.
    mutating func grant(at time: Double) -> [Int] {
        refill(at: time)
        var granted: [Int] = []
        while let head = waiting.first, tokens >= threshold(head.bytes) {
            waiting.removeFirst()
            let grant = max(head.bytes, Int(quantum))
            tokens -= Double(grant)
            reserved[head.client, default: 0] += grant
            granted.append(head.client)
        }
        return granted
    }

    /// When the first waiting client's turn comes, if anyone waits.
    var nextGrant: Double? {
        waiting.first.map { updated + max(0, threshold($0.bytes) - tokens) / rate }
    }

    /// The tokens a waiting client's turn needs: its quantum (or its slice, when larger), at
    /// most a full bucket.
    private func threshold(_ bytes: Int) -> Double {
        min(max(Double(bytes), quantum), depth)
    }

    /// Forgets a client that will take no more: out of the queue, its reserve back to the bucket.
    mutating func remove(client: Int) {
        waiting.removeAll { $0.client == client }
        if let held = reserved.removeValue(forKey: client) { add(Double(held)) }
    }

    private mutating func add(_ bytes: Double) {
        tokens = min(tokens + bytes, depth)
    }

    private mutating func refill(at time: Double) {
        guard time > updated else { return }
        add((time - updated) * rate)
        updated = time
    }
}
