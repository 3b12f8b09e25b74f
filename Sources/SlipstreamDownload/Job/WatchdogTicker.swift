import Dispatch
import Synchronization

/// Runs the watchdog of every running download from one timer, every `DownloadStateMachine.tickInterval`
/// seconds, instead of a timer per download: a queue of a thousand small downloads would
/// otherwise arm and fire a thousand timers. The timer runs only while some download is
/// watched; a download is dropped once its watchdog says it has ended.
final class WatchdogTicker: Sendable {
    static let shared = WatchdogTicker()

    private struct State {
        var jobs: [ObjectIdentifier: DownloadJob] = [:]
        var armed = false
    }

    private let state = Mutex(State())

    /// Watches `job` from the next tick on, until its `tick` returns false.
    func watch(_ job: DownloadJob) {
        let arm = state.withLock { state in
            state.jobs[ObjectIdentifier(job)] = job
            defer { state.armed = true }
            return !state.armed
        }
        if arm { armTimer() }
    }

    private func armTimer() {
        DispatchQueue.global().asyncAfter(deadline: .now() + DownloadStateMachine.tickInterval) { [self] in fire() }
    }

    private func fire() {
        let jobs = state.withLock { Array($0.jobs.values) }
        let ended = jobs.filter { !$0.tick() }.map(ObjectIdentifier.init)
        let rearm = state.withLock { state in
            for id in ended { state.jobs[id] = nil }
            state.armed = !state.jobs.isEmpty
            return state.armed
        }
        if rearm { armTimer() }
    }
}
