import SlipstreamCore

/// Why a `WebServer` could not start: the kind of failure and a message for a person.
public struct WebServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure: `.library`, `.listen`, `.configuration`. New codes may be added:
    /// switch with a `default`.
    public typealias Code = ErrorCode<WebServerError>

    /// The kind of failure.
    public var code: Code
    /// One line for a person, naming what failed (the library's version, the port).
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

extension ErrorCode where Domain == WebServerError {
    /// libwebsockets (`libwebsockets.so.17`) is not installed, or is not version 4.1.x, the
    /// one whose headers the server is built with.
    public static var library: Self { Self("library") }
    /// The port cannot be listened on (in use, or not allowed): the message names it.
    public static var listen: Self { Self("listen") }
    /// A setting is out of range (a port past 65535, a limit below 1, a path not starting
    /// with `/`).
    public static var configuration: Self { Self("configuration") }
}
