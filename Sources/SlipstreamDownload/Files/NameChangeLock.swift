#if canImport(Glibc)
import Glibc
#endif

/// Lets one thread of the process at a time create, rename or remove a download's file.
///
/// The kernel does such changes one at a time per folder anyway, and a thread that waits for
/// one does so spinning on a CPU: two threads creating and renaming a thousand files in one
/// folder on ext4 took twice the CPU of one thread, in the same time, and that CPU is the
/// network thread's. Here the waiters sleep (a plain pthread mutex, which never spins; Swift's
/// `Mutex` is a priority-inheriting futex, whose waiters spin while the holder runs).
/// `@unchecked` because the pthread mutex is reached through a pointer: it is allocated once,
/// never moved or freed, and only used through `pthread_mutex_lock`/`unlock`, which are
/// thread-safe by definition.
final class NameChangeLock: @unchecked Sendable {
    /// The process's lock.
    static let shared = NameChangeLock()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    private init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    /// Runs `body` holding the lock. `body` must do no more than the change (and keep `errno`).
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
