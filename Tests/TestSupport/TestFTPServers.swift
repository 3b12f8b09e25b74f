import Foundation

/// The servers of the FTP, FTPS and SFTP tests (`scripts/ftp-servers.sh`): pyftpdlib on four
/// loopback ports and OpenSSH's sshd on a fifth, all serving one folder, started on first use
/// for this test process (`scripts/test-service.sh ftp`).
public struct TestFTPServers: Sendable {
    /// FTP, user `test`, password `secret`.
    public var ftpPort: Int
    /// The same, refusing `REST` (no ranges).
    public var noRestPort: Int
    /// FTP with `AUTH TLS` (explicit FTPS), a certificate for 127.0.0.1 signed by `caFile`.
    public var explicitTLSPort: Int
    /// Implicit FTPS.
    public var implicitTLSPort: Int
    /// The test CA of the FTPS certificate (PEM).
    public var caFile: String
    /// The folder served.
    public var root: String
    /// pyftpdlib's log: a line per login and per transfer.
    public var ftpLog: String
    /// sshd: SFTP for `sftpUser`, by key only.
    public var sftpPort: Int
    public var sftpUser: String
    /// A client key sshd takes (no passphrase).
    public var sshKey: String
    /// A client key sshd takes, encrypted with `sshPassphrase`.
    public var sshPassphraseKey: String
    public var sshPassphrase: String
    /// A client key sshd does not take.
    public var sshOtherKey: String
    /// A known hosts file with sshd's host key.
    public var knownHosts: String

    /// The servers, started once for this test process: the first caller waits off the Swift
    /// concurrency pool while they start (seconds: certificates, keys, several servers), and
    /// so do callers that come meanwhile, so that no test holds a thread of the pool.
    public static func shared() async throws -> TestFTPServers { try await offPool { try service.get() } }

    private static let service: Result<TestFTPServers, TestServices.Unavailable> = {
        switch TestServices.launch(["ftp"]) {
        case .failure(let reason):
            return .failure(reason)
        case .success(let launched):
            // Kept open, unused, until the process ends: its closing stops the servers.
            _ = fcntl(launched.input.fileDescriptor, F_DUPFD_CLOEXEC, 0)
            let v = launched.values
            func value(_ name: String) -> String { v["SLIPSTREAM_TEST_\(name)"] ?? "" }
            func port(_ name: String) -> Int { Int(value(name)) ?? 0 }
            return .success(
                TestFTPServers(
                    ftpPort: port("FTP_PORT"), noRestPort: port("FTP_NOREST_PORT"),
                    explicitTLSPort: port("FTP_EXPLICIT_PORT"), implicitTLSPort: port("FTP_IMPLICIT_PORT"),
                    caFile: value("FTP_CA"), root: value("FTP_ROOT"), ftpLog: value("FTP_LOG"),
                    sftpPort: port("SFTP_PORT"), sftpUser: value("SFTP_USER"), sshKey: value("SFTP_KEY"),
                    sshPassphraseKey: value("SFTP_PASSPHRASE_KEY"), sshPassphrase: value("SFTP_PASSPHRASE"),
                    sshOtherKey: value("SFTP_OTHER_KEY"), knownHosts: value("SFTP_KNOWN_HOSTS")))
        }
    }()

    /// `ftp://127.0.0.1:PORT/NAME` (`port` default: `ftpPort`; scheme `ftps` with `implicitTLS`).
    public func ftpURL(_ name: String, port: Int? = nil, implicitTLS: Bool = false) -> String {
        "\(implicitTLS ? "ftps" : "ftp")://127.0.0.1:\(port ?? (implicitTLS ? implicitTLSPort : ftpPort))/\(name)"
    }

    /// `sftp://127.0.0.1:PORT/ROOT/NAME`.
    public func sftpURL(_ name: String) -> String {
        "sftp://127.0.0.1:\(sftpPort)\(root)/\(name)"
    }

    /// Makes (once) a served file of `size` pseudo-random bytes named `name`; its path.
    @discardableResult
    public func makeFile(_ name: String, size: Int) throws -> String {
        try TestFiles.makeServedFile(name, size: size, in: root)
    }

    /// The number of logins to the FTP servers so far (each connection logs in once).
    public func loginCount() throws -> Int {
        try String(contentsOfFile: ftpLog, encoding: .utf8).split(separator: "\n").filter { $0.contains("logged in") }.count
    }
}
