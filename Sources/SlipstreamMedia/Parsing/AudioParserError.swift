/// A failure of the audio stream parser: a code to switch on, a message a person can act on, and
/// the byte offset in the stream where it was found.
///
/// Two errors are equal when their code, message and offset are; the underlying error is not
/// compared.
public struct AudioParserError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: `.unrecognisedFormat`, `.unsupportedFormat`, `.malformed`. New codes
    /// may be added: switch with a `default`.
    public typealias Code = ErrorCode<AudioParserError>

    /// What went wrong.
    public var code: Code
    /// A one-line explanation naming what was seen.
    public var message: String
    /// Byte offset in the stream where the problem was found, if it is tied to one.
    public var offset: Int64?
    /// The error underneath, where there is one (none yet: the parser's checks are its own).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(code: Code, message: String, offset: Int64? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.underlying = underlying
    }

    /// The message, with the offset when there is one.
    public var description: String {
        offset.map { "\(message) (at byte \($0))" } ?? message
    }

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: AudioParserError, b: AudioParserError) -> Bool {
        a.code == b.code && a.message == b.message && a.offset == b.offset
    }

    /// Hashes the facts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(offset)
    }
}

extension ErrorCode where Domain == AudioParserError {
    /// No supported format (MP3/MPEG audio, AAC in ADTS or MP4, FLAC, Ogg,
    /// WAV, AIFF, CAF) was found in the bytes.
    public static var unrecognisedFormat: Self { Self("unrecognised format") }
    /// The format was recognised but is not supported: a variant (e.g. a compressed WAV), or
    /// a container that cannot be played yet (Ogg, FLAC, MP4/M4A, AIFF, CAF, Matroska/WebM),
    /// refused by its first bytes.
    public static var unsupportedFormat: Self { Self("unsupported format") }
    /// The container is malformed beyond recovery (e.g. a WAV `fmt ` chunk that is too short).
    public static var malformed: Self { Self("malformed") }
}
