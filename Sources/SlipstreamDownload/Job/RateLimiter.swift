import Dispatch
import Synchronization

/// A limit on the bytes per second that the transfers sharing it receive together: a token
/// bucket holding 50 ms of the rate, shared fairly between transfers (the one that has waited
/// longest goes first).
///
/// A transfer asks the limiter before it takes each slice of body, on the HTTP engine's thread;
/// when the tokens do not cover the slice, the transfer is paused (libcurl stops reading the
/// socket, so TCP slows the server down) and a timer wakes it when its turn comes, with 25 ms
/// of the rate set aside for it, so that it pauses at most once per 25 ms of the rate rather
/// than once per slice. Nothing polls: with every transfer paused, no thread runs until the
/// timer fires.
///
/// Give one limiter to every download that shares the limit, through
/// `DownloadConfiguration.sharedRateLimiter` (e.g. one per process); a per-download limit is
/// `DownloadConfiguration.bytesPerSecondLimit`. Over any second, the bytes received stay within
/// the rate plus the bucket (5%), and on average they match the rate.
public final class RateLimiter: Sendable {
    /// The limit in bytes per second.
    public let bytesPerSecond: Int64
    /// The bucket's size in bytes: the most that may pass at once after a pause.
    let depth: Double
    /// Seconds of the rate the bucket holds.
    static let depthSeconds = 0.05

    private struct State {
        var bucket: TokenBucket
        var wakers: [Int: @Sendable () -> Void] = [:]
        var nextClient = 1
        var timerPending = false
    }

    private let state: Mutex<State>
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// A limiter of `bytesPerSecond` (at least 1).
    public init(bytesPerSecond: Int64) {
        self.bytesPerSecond = max(bytesPerSecond, 1)
        start = clock.now
        let rate = Double(self.bytesPerSecond)
        depth = max(rate * Self.depthSeconds, 1)
        state = Mutex(State(bucket: TokenBucket(rate: rate, depth: depth, at: 0)))
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
            state.bucket.remove(client: client)
        }
    }

    /// Whether `client` may take `bytes` now; if not, it is woken when it may.
    func take(_ bytes: Int, client: Int) -> Bool {
        state.withLock { state in
            if state.bucket.take(bytes, client: client, at: now) { return true }
            scheduleTimer(&state)
            return false
        }
    }

    /// Gives back `bytes` that `take` let through but the client did not use (another limit
    /// held the slice back), reserved for the client's next `take`.
    func hold(_ bytes: Int, client: Int) {
        state.withLock { $0.bucket.hold(bytes, client: client) }
    }

    /// One timer at a time, for the head of the queue: anyone who queues later waits longer.
    private func scheduleTimer(_ state: inout State) {
        guard !state.timerPending, let due = state.bucket.nextGrant else { return }
        state.timerPending = true
        // At least a millisecond, so that rounding can never make the timer spin.
        let wait = max(due - now, 0.001)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(wait * 1e9))) { [self] in
            fire()
        }
    }

    private func fire() {
        let wakers: [@Sendable () -> Void] = state.withLock { state in
            state.timerPending = false
            let granted = state.bucket.grant(at: now)
            scheduleTimer(&state)
            return granted.compactMap { state.wakers[$0] }
        }
        wakers.forEach { $0() }
    }
}
