/// A failure of the audio stream parser: a code to switch on, a message a person can act on, and
/// the byte offset in the stream where it was found.
public struct AudioParserError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// No supported format (MP3/MPEG audio, AAC in ADTS, WAV) was found in the bytes.
        public static let unrecognisedFormat = Code(name: "unrecognisedFormat")
        /// The format was recognised but its variant is not supported (e.g. a compressed WAV).
        public static let unsupportedFormat = Code(name: "unsupportedFormat")
        /// The container is malformed beyond recovery (e.g. a WAV `fmt ` chunk that is too short).
        public static let malformed = Code(name: "malformed")

        /// The code's name, e.g. `unrecognisedFormat`.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// A one-line explanation naming what was seen.
    public var message: String
    /// Byte offset in the stream where the problem was found, if it is tied to one.
    public var offset: Int64?

    /// Creates an error.
    public init(code: Code, message: String, offset: Int64? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The message, with the offset when there is one.
    public var description: String {
        offset.map { "\(message) (at byte \($0))" } ?? message
    }
}
