#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Puts the terminal on standard input in raw mode (no echo, keys delivered at once) for the
/// player's keys, and puts it back as it was: `restore()` on every way out (it is also
/// registered with `atexit`, so even an `exit` from elsewhere restores it).
final class RawTerminal: Sendable {
    /// The settings to go back to; set while raw mode is on.
    private static let saved = Mutex<termios?>(nil)

    /// Switches standard input to raw mode; nil when it is not a terminal.
    init?() {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        Self.saved.withLock { $0 = settings }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        atexit { RawTerminal.restoreSaved() }
    }

    /// Puts the terminal back; safe to call more than once.
    func restore() { Self.restoreSaved() }

    private static func restoreSaved() {
        guard
            var settings = saved.withLock({ state -> termios? in
                defer { state = nil }; return state
            })
        else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
