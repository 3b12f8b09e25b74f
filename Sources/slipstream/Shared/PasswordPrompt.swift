#if canImport(Glibc)
import Glibc
#endif

/// Asks for a password on the terminal (`/dev/tty`, whatever standard input is), without echo.
enum PasswordPrompt {
    /// Writes `prompt` to the terminal and reads one line with echo off, putting the terminal
    /// back as it was. Fails when there is no terminal to ask on.
    static func ask(_ prompt: String) throws(CommandError) -> String {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw CommandError(
                status: .usage,
                message: "no terminal to ask for the password on: give it as --user USER:PASSWORD, or use --netrc-file FILE")
        }
        defer { close(tty) }
        var saved = termios()
        let isTerminal = tcgetattr(tty, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(tty, TCSAFLUSH, &quiet)
        }
        defer { if isTerminal { tcsetattr(tty, TCSAFLUSH, &saved) } }
        _ = prompt.utf8CString.withUnsafeBufferPointer { write(tty, $0.baseAddress, $0.count - 1) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != 10 {
            if byte != 13 { line.append(byte) }
        }
        return String(decoding: line, as: UTF8.self)
    }
}
