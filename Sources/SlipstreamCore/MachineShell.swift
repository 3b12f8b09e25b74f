import Synchronization

/// The one way a pure state machine runs among threads: an input takes the lock, the machine
/// decides, the lock is released, and the actions it returned are carried out in order by the
/// owner, outside the lock. Inputs come from any thread (an engine's I/O thread, a writer's
/// thread, a timer, the caller); the machine never waits on anything, and nothing is carried
/// out while the lock is held, so an action may feed the machine again without a deadlock.
///
/// `State` is what the owner keeps behind the lock: the machine and the few things that live
/// beside it (open transfers, files, waiters). The owner holds the shell, the shell holds no
/// reference to the owner: `perform` is given with each input.
///
///     let shell = MachineShell(State(machine: machine))
///     shell.feed({ $0.machine.answer(head, at: now) }, perform: carryOut)
///
/// Actions of two inputs fed at once from two threads may be carried out interleaved; an owner
/// that needs them one input at a time (the player) feeds from one serial queue.
package final class MachineShell<State: Sendable>: Sendable {
    private let state: Mutex<State>

    /// A shell around `state`.
    package init(_ state: State) {
        self.state = Mutex(state)
    }

    /// Feeds one input: `decide` runs under the lock and returns what to do; then `perform`
    /// carries out each action, in order, with the lock released.
    package func feed<Action>(_ decide: (inout State) -> sending [Action], perform: (Action) -> Void) {
        for action in state.withLock(decide) {
            perform(action)
        }
    }

    /// Reads or changes what is behind the lock without an input to the machine (a snapshot for
    /// an observer, a handle kept beside it). Never carry anything out inside `body`.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try state.withLock(body)
    }
}
