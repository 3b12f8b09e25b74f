/// Why the daemon could not start or go on: a code, and a message naming the port, folder or
/// file concerned.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added: switch with a `default`.
    public typealias Code = ErrorCode<DaemonError>

    /// The kind of failure.
    public var code: Code
    /// One line for a person.
    public var message: String
    /// The cause underneath, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message.redactingLogins
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }
}

extension ErrorCode where Domain == DaemonError {
    /// The server could not listen (the port is taken, libwebsockets is missing, ...).
    public static var listen: Self { Self("listen") }
    /// The download folder is missing or cannot be used.
    public static var folder: Self { Self("folder") }
    /// The settings would leave the daemon open to others (every interface, no secret).
    public static var insecure: Self { Self("insecure") }
    /// A session or input file could not be read.
    public static var input: Self { Self("input") }
}
