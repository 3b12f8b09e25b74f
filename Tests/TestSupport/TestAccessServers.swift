import Foundation

/// The servers of the TLS, login and cookie tests (`scripts/access-servers.sh`): one nginx on
/// several loopback ports, with a test CA, a password file and a cookie-guarded location,
/// started on first use for this test process (`scripts/test-service.sh access`).
public struct TestAccessServers: Sendable {
    /// Plain HTTP: `/files/`, `/basic/` (user `test`, password `secret`), `/basic-away/` (the
    /// same login, then a redirect to `otherPort`), `/cookie/` (403 without the cookie
    /// `pass=open-sesame`), `/login/` (sets it and redirects to `/cookie/`).
    public var httpPort: Int
    /// Plain HTTP, `/files/`: the server `/basic-away/` redirects to.
    public var otherPort: Int
    /// HTTPS and HTTP/2, a certificate for localhost, 127.0.0.1 and ::1 signed by `caFile`.
    public var tlsPort: Int
    /// HTTPS with an expired certificate signed by `caFile`.
    public var expiredPort: Int
    /// HTTPS with a certificate signed by `caFile` for `wrong.example` only.
    public var wrongNamePort: Int
    /// Plain HTTP on `[::1]` (`/files/`); nil when the machine has no IPv6 loopback.
    public var http6Port: Int?
    /// The test CA (PEM), a folder holding it hashed, and the TLS server's key pin.
    public var caFile: String
    public var caPath: String
    public var pin: String
    /// The folder served under `/files/`, `/basic/`, `/cookie/` ...
    public var filesFolder: String
    /// The access log: `PORT CLIENT-PORT "REQUEST" STATUS "AUTHORIZATION" "COOKIE" PROTOCOL` per line.
    public var logPath: String
    /// lighttpd's port: `/files/` behind a Digest login (user `test`, password `secret`); nil
    /// where lighttpd is not installed.
    public var digestPort: Int?
    /// tinyproxy's port (an HTTP proxy), nil where it is not installed; its log.
    public var httpProxyPort: Int?
    /// danted's port (a SOCKS5 proxy), nil where it is not installed; its log.
    public var socksPort: Int?
    public var workFolder: String { String(logPath.dropLast("/access.log".count)) }
    public var tinyproxyLogPath: String { workFolder + "/tinyproxy.log" }
    public var dantedLogPath: String { workFolder + "/danted.log" }

    /// The servers, started once for this test process: the first caller waits off the Swift
    /// concurrency pool while they start (seconds: certificates, keys, several servers), and
    /// so do callers that come meanwhile, so that no test holds a thread of the pool.
    public static func shared() async throws -> TestAccessServers { try await offPool { try service.get() } }

    private static let service: Result<TestAccessServers, TestServices.Unavailable> = {
        switch TestServices.launch(["access"]) {
        case .failure(let reason):
            return .failure(reason)
        case .success(let launched):
            // Kept open, unused, until the process ends: its closing stops the servers.
            _ = fcntl(launched.input.fileDescriptor, F_DUPFD_CLOEXEC, 0)
            let v = launched.values
            func value(_ name: String) -> String { v["SLIPSTREAM_TEST_ACCESS_\(name)"] ?? "" }
            func port(_ name: String) -> Int { Int(value(name)) ?? 0 }
            return .success(
                TestAccessServers(
                    httpPort: port("HTTP_PORT"), otherPort: port("OTHER_PORT"), tlsPort: port("TLS_PORT"),
                    expiredPort: port("EXPIRED_PORT"), wrongNamePort: port("WRONGNAME_PORT"),
                    http6Port: Int(value("HTTP6_PORT")), caFile: value("CA"), caPath: value("CAPATH"), pin: value("PIN"),
                    filesFolder: value("WWW"), logPath: value("LOG"), digestPort: Int(value("DIGEST_PORT")),
                    httpProxyPort: Int(value("HTTP_PROXY_PORT")), socksPort: Int(value("SOCKS_PORT"))))
        }
    }()

    /// `http://127.0.0.1:PORT/LOCATION/NAME` (scheme `https` with `tls`).
    public func url(_ name: String, location: String = "files", port: Int? = nil, tls: Bool = false) -> String {
        "\(tls ? "https" : "http")://127.0.0.1:\(port ?? httpPort)/\(location)/\(name)"
    }

    /// Makes (once) a served file of `size` pseudo-random bytes named `name`; its path.
    @discardableResult
    public func makeFile(_ name: String, size: Int) throws -> String {
        try TestFiles.makeServedFile(name, size: size, in: filesFolder)
    }

    /// The access log's lines for requests whose target starts with `prefix`, in the order
    /// they ended.
    public func logLines(forTargetsStartingWith prefix: String) throws -> [String] {
        try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init).filter {
            $0.contains("\"GET \(prefix)")
        }
    }
}
