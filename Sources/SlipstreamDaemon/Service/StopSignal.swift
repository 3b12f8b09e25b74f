import Synchronization

/// Raised once, from any thread; awaited by any number of tasks, which return once it is.
final class StopSignal: Sendable {
    private struct State {
        var raised = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Raises it: every waiter returns, and later waits return at once.
    func raise() {
        let waiters = state.withLock { state in
            state.raised = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once it is raised.
    func wait() async {
        await withCheckedContinuation { continuation in
            let raised = state.withLock { state in
                if !state.raised { state.waiters.append(continuation) }
                return state.raised
            }
            if raised { continuation.resume() }
        }
    }
}
