/// Why an output could not be opened or could not go on: a code, a message naming the output
/// (device, sound server or file) and the cause, and those facts as fields.
///
/// Two errors are equal when their code, message, output, path and system status are; the
/// underlying error is not compared.
public struct AudioOutputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: `.unavailable`, `.formatNotSupported`, `.deviceFailed`, `.fileFailed`.
    /// New codes may be added: switch with a `default`.
    public typealias Code = ErrorCode<AudioOutputError>

    /// What went wrong.
    public var code: Code
    /// A message for a person naming the output (device, server or file) and the cause.
    public var message: String
    /// The output, as messages name it: `ALSA device "default"`, `PulseAudio (default server)`,
    /// `WAV file "out.wav"`, `null output`.
    public var output: String?
    /// The file, for a WAV file output.
    public var path: String?
    /// The system's or sound library's error number (errno, ALSA's or PulseAudio's code), where
    /// one was given.
    public var systemStatus: Int32?
    /// The error underneath, where there is one.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, output: String? = nil, path: String? = nil,
        systemStatus: Int32? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.output = output
        self.path = path
        self.systemStatus = systemStatus
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: AudioOutputError, b: AudioOutputError) -> Bool {
        a.code == b.code && a.message == b.message && a.output == b.output && a.path == b.path
            && a.systemStatus == b.systemStatus
    }

    /// Hashes the facts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(output)
        hasher.combine(path)
        hasher.combine(systemStatus)
    }
}

extension ErrorCode where Domain == AudioOutputError {
    /// No such device, no sound server answering, or the device is busy.
    public static var unavailable: Self { Self("unavailable") }
    /// The device or server does not take this format.
    public static var formatNotSupported: Self { Self("format not supported") }
    /// The device or server failed while playing.
    public static var deviceFailed: Self { Self("device failed") }
    /// The output file could not be created or written.
    public static var fileFailed: Self { Self("file failed") }
}
