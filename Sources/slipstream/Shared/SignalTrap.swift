import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Catches SIGINT and SIGTERM (instead of dying at once), remembers which came first and runs
/// a handler, so a command can stop cleanly and say how to carry on. Keep it alive while needed.
final class SignalTrap {
    private final class FirstSignal: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    private let first = FirstSignal()
    private var sources: [any DispatchSourceSignal] = []

    /// Traps both signals; `handler` runs on a Dispatch queue for each one caught.
    init(handler: @escaping @Sendable () -> Void) {
        let first = self.first
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                first.number.withLock { $0 = $0 ?? number }
                handler()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var caughtSignal: Int32? { first.number.withLock { $0 } }
}
