#if canImport(Glibc)
import Glibc
#endif
import SlipstreamCore

/// Writing to the terminal: messages and errors on stderr, and a status line redrawn in place.
/// Every text these are given is shown as `shown` makes it: a URL's password never reaches a
/// terminal or a log, and text from outside never controls the terminal.
enum Terminal {
    /// `text` as it may be shown: the password of every URL in it replaced by `***`, and every
    /// control character escaped (a line break too: one message is one line).
    static func shown(_ text: String) -> String {
        text.redactingLogins.printable
    }

    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// `slipstream: MESSAGE` on stderr.
    static func error(_ message: String) {
        write("slipstream: \(shown(message))\n")
    }

    /// A usage error on stderr, followed by the first line of the command's `usage`.
    static func usageError(_ error: UsageError, usage: String) {
        self.error("\(error)")
        write("\(usage.prefix { $0 != "\n" })\n")
    }

    /// A line on stderr.
    /// With `over`, the status line is cleared first (it is redrawn on its next tick).
    static func message(_ message: String, over statusLine: Bool = false) {
        write((statusLine ? "\r\u{1B}[K" : "") + shown(message) + "\n")
    }

    /// Redraws the status line; `final` ends it with a newline.
    static func statusLine(_ text: String, final: Bool = false) {
        write("\r\(shown(text))\u{1B}[K" + (final ? "\n" : ""))
    }

    static func clearStatusLine() {
        write("\r\u{1B}[K")
    }

    /// The terminal's width in columns (80 when it cannot be told).
    static var width: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Writes `text` to stdout at once (no buffering: a reader of a pipe gets each line as it
    /// is written), every URL's password replaced by `***`. The text's own line breaks stay:
    /// its parts from outside must already be escaped (JSON, `InfoReport`).
    static func output(_ text: String) {
        write(text.redactingLogins, to: STDOUT_FILENO)
    }

    /// Writes `text` to `descriptor` (default stderr) as it is: only for text of the command's
    /// own, or made safe with `shown`.
    static func write(_ text: String, to descriptor: Int32 = STDERR_FILENO) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count <= 0 { return }
            offset += count
        }
    }
}
