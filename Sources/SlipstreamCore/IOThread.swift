#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread for blocking work that must stay off the Swift
/// concurrency pool (Foundation's `Thread` would pull in all of Foundation and ICU).
package enum IOThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.run()
                return nil
            }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }
}
