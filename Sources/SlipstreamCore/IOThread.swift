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

    /// Runs `body` on a new detached thread named `name` (what `top -H`, `ps -L` and debuggers
    /// show; the kernel keeps 15 bytes).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let named: @Sendable () -> Void = {
            nameThisThread(name)
            body()
        }
        let context = Unmanaged.passRetained(Body(run: named)).toOpaque()
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

    /// Names the calling thread. Glibc's `pthread_setname_np` does not reach Swift, so the name
    /// is written where it ends up: `/proc/thread-self/comm`.
    private static func nameThisThread(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
    }
}
