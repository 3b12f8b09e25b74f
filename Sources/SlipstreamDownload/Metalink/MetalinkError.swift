/// A Metalink document that could not be read: the line where the reader stopped and what is
/// wrong there, in words a person can act on ("line 12: <file> has no name").
public struct MetalinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line (1-based) of the input where the problem is; 0 for the document as a whole
    /// (too big, not UTF-8 from the start).
    public var line: Int
    /// What is wrong.
    public var message: String

    /// An error at `line` saying `message`.
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    /// `line N: message`, or the message alone for the document as a whole.
    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
