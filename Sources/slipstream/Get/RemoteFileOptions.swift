#if canImport(Glibc)
import Glibc
#endif
import SlipstreamHTTP

/// The options of `get` for FTP, FTPS and SFTP: the SSH key and known hosts, and TLS for FTP.
/// Pure: the key files are looked at by `apply(to:)`.
struct RemoteFileOptions: Equatable {
    /// `--ssh-key`, `--ssh-key-passphrase`, `--known-hosts`, `--ssh-accept-new-host`.
    var ssh = SSHAccess()
    /// `--ftp-ssl`.
    var requiresFTPTLS = false

    /// The help lines of these options.
    static let usage = """
              --ssh-key FILE         SFTP: log in with the private key FILE (its public key:
                                     FILE.pub where it exists, else derived from FILE)
              --ssh-key-passphrase PASS
                                     SFTP: the passphrase of the --ssh-key
              --known-hosts FILE     SFTP: the server's host key must be in FILE (OpenSSH
                                     format; default ~/.ssh/known_hosts)
              --ssh-accept-new-host  SFTP: trust a host not in the known hosts file and add
                                     it there (a host there with another key is still refused)
              --ftp-ssl              FTP: switch to TLS (AUTH TLS) for the login and the data,
                                     or fail; ftps:// URLs use TLS from the start
        """

    /// Takes option `name` when it is one of these; false when it is not.
    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) -> Bool {
        switch name {
        case "--ssh-key":
            ssh.privateKeyFile = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "--ssh-key-passphrase":
            ssh.keyPassphrase = try reader.value(for: name, inline: inline)
        case "--known-hosts":
            ssh.knownHostsFile = try Self.path(try reader.value(for: name, inline: inline), for: name)
        case "--ssh-accept-new-host":
            try CommandLineArguments.flag(name, inline: inline)
            ssh.acceptsNewHost = true
        case "--ftp-ssl":
            try CommandLineArguments.flag(name, inline: inline)
            requiresFTPTLS = true
        default:
            return false
        }
        return true
    }

    /// Puts these options into `access`; fails, saying why, when the key cannot be read.
    func apply(to access: inout TransferAccess) throws(CommandError) {
        if let key = ssh.privateKeyFile, Glibc.access(key, R_OK) != 0 {
            throw CommandError(status: .disk, message: "\(key): cannot be read (\(String(cString: strerror(errno))))")
        }
        access.ssh = ssh
        access.requiresFTPTLS = requiresFTPTLS
    }

    private static func path(_ text: String, for option: String) throws(UsageError) -> String {
        if text.isEmpty { throw UsageError("\(option) needs a file name") }
        return text
    }
}
