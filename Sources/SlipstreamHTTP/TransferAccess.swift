/// How a transfer gets in: whom it trusts over TLS and SSH, its login, and its cookies. Every
/// configuration that makes requests (a download's, the player's, `AudioInfo`'s) has one and
/// hands it to each of its requests.
public struct TransferAccess: Sendable {
    /// The TLS trust: certificate authorities, verification, pinning. Default: the system's,
    /// verified.
    public var security = TransferSecurity()
    /// A login, sent only to the server of the URL it is used with (a download's URL and its
    /// mirrors; the URL played or described): never to a server a redirect leads to, nor to a
    /// playlist's entries on another server. Default none.
    public var credentials: Credentials?
    /// Whether logins are looked up in a `.netrc` file by host. Default `.off`.
    public var netrc = NetrcUse.off
    /// Cookies shared by every request that carries this session (all connections of a
    /// segmented download see the same cookies, including those a server set on one of them).
    /// Default none: no cookies are kept or sent.
    public var cookies: CookieSession?
    /// SFTP: the key to log in with and the known hosts the server must be among. Default: the
    /// user's keys, `~/.ssh/known_hosts`, unknown hosts refused.
    public var ssh = SSHAccess()
    /// FTP: whether an `ftp://` transfer must switch to TLS (`AUTH TLS`, explicit FTPS) for its
    /// login and its data, failing with `.tls` where the server cannot. Default false: plain FTP.
    /// (`ftps://` URLs always use TLS from the first byte: implicit FTPS.) The trust is `security`'s.
    public var requiresFTPTLS = false

    /// The defaults: verified TLS, no login, no cookies.
    public init() {}

    /// This access for a request to `url`, where the login may go only to `origins`: without
    /// the credentials when `url`'s origin is not one of them.
    package func scoped(to url: String, loginOrigins origins: [URLOrigin]) -> TransferAccess {
        guard credentials != nil, let origin = URLOrigin(url), !origins.contains(origin) else { return self }
        var scoped = self
        scoped.credentials = nil
        return scoped
    }
}
