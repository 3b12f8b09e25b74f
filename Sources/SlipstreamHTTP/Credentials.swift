/// A login for a server: a user name and a password, and the schemes it may be sent with.
///
/// A transfer sends it only to the server of its own URL: never to another host, port or
/// scheme a redirect leads to. Protocol-neutral: an HTTP server gets it by the `methods`
/// below; other protocols use the user name and password as they define.
public struct Credentials: Sendable, Equatable {
    /// How an HTTP server may be sent the login.
    public enum Methods: Sendable, Equatable {
        /// Whatever the server asks for, as libcurl negotiates it (`CURLAUTH_ANY`): the first
        /// request goes without the login, and the server's `401` names the schemes it takes.
        case any
        /// Basic only, sent with the first request (the password travels in the clear
        /// without TLS).
        case basic
        /// Digest only (the password never travels).
        case digest
    }

    /// The user name.
    public var user: String
    /// The password (may be empty).
    public var password: String
    /// The schemes it may be sent with. Default `.any`.
    public var methods: Methods

    /// A login of `user` with `password`, sent as the server asks (`methods`, default `.any`).
    public init(user: String, password: String, methods: Methods = .any) {
        self.user = user
        self.password = password
        self.methods = methods
    }
}
