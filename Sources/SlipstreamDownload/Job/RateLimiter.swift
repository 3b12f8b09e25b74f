import Dispatch
import Synchronization

/// A limit on the bytes per second that the transfers sharing it receive together: a token
/// bucket holding 50 ms of the rate, shared fairly between transfers (the one that has waited
/// longest goes first). The limit can change at any time, or be lifted (nil), and running
/// transfers follow at once.
///
/// A transfer asks the limiter before it takes each slice of body, on the HTTP engine's thread;
/// when the tokens do not cover the slice, the transfer is paused (libcurl stops reading the
/// socket, so TCP slows the server down) and a timer wakes it when its turn comes, with 25 ms
/// of the rate set aside for it, so that it pauses at most once per 25 ms of the rate rather
/// than once per slice. Nothing polls: with every transfer paused, no thread runs until the
/// timer fires. Without a limit, a slice costs one atomic load.
///
/// Give one limiter to every download that shares the limit, through
/// `DownloadConfiguration.sharedRateLimiter` (e.g. one per process); a per-download limit is
/// `DownloadConfiguration.bytesPerSecondLimit`. Over any second, the bytes received stay within
/// the rate plus the bucket (5%), and on average they match the rate.
public final class RateLimiter: Sendable {
    /// Seconds of the rate the bucket holds.
    static let depthSeconds = 0.05

    private struct State {
        /// Nil without a limit.
        var bucket: TokenBucket?
        var wakers: [Int: @Sendable () -> Void] = [:]
        var nextClient = 1
        var timerPending = false
        /// Counts the changes of the limit: a timer set before the last change does nothing.
        var timerGeneration = 0
    }

    /// The limit in bytes per second, 0 for none: read without the lock on every slice.
    private let limit: Atomic<Int64>
    private let state: Mutex<State>
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// A limiter of `bytesPerSecond` (at least 1); nil for none yet (see `setBytesPerSecond`).
    public init(bytesPerSecond: Int64?) {
        start = clock.now
        let limit = bytesPerSecond.map { max($0, 1) }
        self.limit = Atomic(limit ?? 0)
        state = Mutex(State(bucket: limit.map { Self.bucket(rate: $0, at: 0) }))
    }

    /// The limit in bytes per second now; nil when there is none.
    public var bytesPerSecond: Int64? {
        let limit = limit.load(ordering: .relaxed)
        return limit > 0 ? limit : nil
    }

    /// Changes the limit at once, for the transfers already running too (nil lifts it, at
    /// least 1 otherwise): bytes taken before count at the old rate, transfers waiting for
    /// their turn are woken (without a limit) or get it when the new rate says.
    public func setBytesPerSecond(_ bytesPerSecond: Int64?) {
        let newLimit = bytesPerSecond.map { max($0, 1) }
        let woken: [@Sendable () -> Void] = state.withLock { state in
            limit.store(newLimit ?? 0, ordering: .relaxed)
            // A timer set for the old rate may be due much later (or sooner): a new one is set.
            state.timerGeneration += 1
            state.timerPending = false
            guard let newLimit else {
                let waiting = state.bucket?.waiting.map(\.client) ?? []
                state.bucket = nil
                return waiting.compactMap { state.wakers[$0] }
            }
            let time = now
            if state.bucket == nil {
                state.bucket = Self.bucket(rate: newLimit, at: time)
            } else {
                state.bucket?.setRate(Double(newLimit), depth: Self.depth(of: newLimit), at: time)
            }
            scheduleTimer(&state)
            return []
        }
        if !woken.isEmpty { DispatchQueue.global().async { woken.forEach { $0() } } }
    }

    /// A full bucket of `rate` at `time`.
    private static func bucket(rate: Int64, at time: Double) -> TokenBucket {
        TokenBucket(rate: Double(rate), depth: depth(of: rate), at: time)
    }

    /// The bucket's size in bytes for `rate`: the most that may pass at once after a pause.
    private static func depth(of rate: Int64) -> Double {
        max(Double(rate) * depthSeconds, 1)
    }

    private var now: Double {
        let elapsed = start.duration(to: clock.now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    /// A new client (one transfer); `wake` is called, on a Dispatch thread and without locks
    /// held, when a slice the client was refused may be taken.
    func register(wake: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            let client = state.nextClient
            state.nextClient += 1
            state.wakers[client] = wake
            return client
        }
    }

    /// Forgets a client whose transfer ended.
    func unregister(_ client: Int) {
        state.withLock { state in
            state.wakers[client] = nil
            state.bucket?.remove(client: client)
        }
    }

    /// Whether `client` may take `bytes` now; if not, it is woken when it may.
    func take(_ bytes: Int, client: Int) -> Bool {
        guard limit.load(ordering: .relaxed) > 0 else { return true }
        return state.withLock { state in
            let time = now
            guard state.bucket?.take(bytes, client: client, at: time) == false else { return true }
            scheduleTimer(&state)
            return false
        }
    }

    /// Gives back `bytes` that `take` let through but the client did not use (another limit
    /// held the slice back), reserved for the client's next `take`.
    func hold(_ bytes: Int, client: Int) {
        state.withLock { $0.bucket?.hold(bytes, client: client) }
    }

    /// One timer at a time, for the head of the queue: anyone who queues later waits longer.
    private func scheduleTimer(_ state: inout State) {
        guard !state.timerPending, let due = state.bucket?.nextGrant else { return }
        state.timerPending = true
        let generation = state.timerGeneration
        // At least a millisecond, so that rounding can never make the timer spin.
        let wait = max(due - now, 0.001)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(wait * 1e9))) { [self] in
            fire(generation)
        }
    }

    private func fire(_ generation: Int) {
        let wakers: [@Sendable () -> Void] = state.withLock { state in
            guard generation == state.timerGeneration else { return [] }
            state.timerPending = false
            let time = now
            let granted = state.bucket?.grant(at: time) ?? []
            scheduleTimer(&state)
            return granted.compactMap { state.wakers[$0] }
        }
        wakers.forEach { $0() }
    }
}
