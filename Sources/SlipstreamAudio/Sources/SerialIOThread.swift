import Dispatch
import Synchronization

/// A thread of its own (off the Swift concurrency pool) running blocking jobs one after the
/// other, in the order given; it starts with the first job and ends after `finish()`.
final class SerialIOThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var isStarted = false
        var isFinished = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Runs `job` on the thread after the jobs given before it.
    func run(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.jobs.append(job)
            defer { state.isStarted = true }
            return !state.isStarted
        }
        if start { IOThread.start(name: "slipstream-file") { [self] in loop() } }
        wake.signal()
    }

    /// Ends the thread once the jobs given so far have run.
    func finish() {
        state.withLock { $0.isFinished = true }
        wake.signal()
    }

    private func loop() {
        while true {
            let next = state.withLock { state -> (job: (@Sendable () -> Void)?, end: Bool) in
                if !state.jobs.isEmpty { return (state.jobs.removeFirst(), false) }
                return (nil, state.isFinished)
            }
            if let job = next.job {
                job()
            } else if next.end {
                return
            } else {
                wake.wait()
            }
        }
    }
}
