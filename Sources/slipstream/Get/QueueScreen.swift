import Synchronization

/// The status block of a queue on a terminal: some lines redrawn in place at the bottom, with
/// permanent lines printed above them. Safe from any thread.
final class QueueScreen: Sendable {
    private let drawnLines = Mutex(0)
    /// Whether to draw the status block (a terminal, not quiet).
    let live: Bool

    init(live: Bool) {
        self.live = live
    }

    /// Replaces the status block with `lines`.
    func redraw(_ lines: [String]) {
        guard live else { return }
        drawnLines.withLock { drawn in
            Terminal.write(Self.clear(drawn) + lines.map(Terminal.shown).joined(separator: "\n"))
            drawn = lines.count
        }
    }

    /// Prints `line` (as `Terminal.shown` makes it) for good, above the status block (which the next redraw puts back).
    func print(_ line: String) {
        drawnLines.withLock { drawn in
            Terminal.write((live ? Self.clear(drawn) : "") + Terminal.shown(line) + "\n")
            drawn = 0
        }
    }

    /// Clears the status block.
    func clear() {
        guard live else { return }
        drawnLines.withLock { drawn in
            Terminal.write(Self.clear(drawn))
            drawn = 0
        }
    }

    /// Back to the start of a block of `lines` lines, cleared to the end of the screen.
    private static func clear(_ lines: Int) -> String {
        (lines > 1 ? "\r\u{1B}[\(lines - 1)A" : "\r") + "\u{1B}[J"
    }
}
