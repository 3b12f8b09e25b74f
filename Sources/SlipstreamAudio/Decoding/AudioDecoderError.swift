/// Why a decoder could not be made or could not go on: a code, a message naming the codec and
/// the C library's own words, and those facts as fields.
///
/// Two errors are equal when their code, message, codec and library status are; the underlying
/// error is not compared.
public struct AudioDecoderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: `.unsupportedFormat`, `.initializationFailed`, `.decodingFailed`. New
    /// codes may be added: switch with a `default`.
    public typealias Code = ErrorCode<AudioDecoderError>

    /// What went wrong.
    public var code: Code
    /// A message for a person, naming the codec and the library's own words.
    public var message: String
    /// The codec variant concerned, e.g. "MPEG-1 Layer III", where known.
    public var codec: String?
    /// The C library's error number (libmpg123's or libfaad2's), where it gave one.
    public var libraryStatus: Int?
    /// The error underneath, where there is one.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, codec: String? = nil, libraryStatus: Int? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.codec = codec
        self.libraryStatus = libraryStatus
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// Whether two errors state the same facts (the underlying errors are not compared).
    public static func == (a: AudioDecoderError, b: AudioDecoderError) -> Bool {
        a.code == b.code && a.message == b.message && a.codec == b.codec && a.libraryStatus == b.libraryStatus
    }

    /// Hashes the facts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(codec)
        hasher.combine(libraryStatus)
    }
}

extension AudioDecoderError {
    /// Throws `.initializationFailed` with `missing` (the C shim's message naming the library and
    /// its Debian package) unless `available` (the shim's `slipstream_NAME_loaded()`): the
    /// decoders' libraries are loaded on first use, not linked.
    static func requireLibrary(_ available: Int32, _ missing: UnsafePointer<CChar>, codec: String) throws(AudioDecoderError) {
        guard available != 0 else { throw AudioDecoderError(.initializationFailed, String(cString: missing), codec: codec) }
    }
}

extension ErrorCode where Domain == AudioDecoderError {
    /// No decoder here handles this format.
    public static var unsupportedFormat: Self { Self("unsupported format") }
    /// The C decoder could not be created or configured.
    public static var initializationFailed: Self { Self("initialization failed") }
    /// The C decoder reported an error it cannot recover from.
    public static var decodingFailed: Self { Self("decoding failed") }
}
