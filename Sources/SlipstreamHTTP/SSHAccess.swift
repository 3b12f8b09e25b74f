/// How an SFTP transfer logs in and which servers it trusts: the key it signs in with and the
/// known hosts file its server's host key is checked against.
public struct SSHAccess: Sendable, Equatable {
    /// The private key to log in with (libcurl's `SSH_PRIVATE_KEYFILE`), in OpenSSH or PEM
    /// format. Default nil: `~/.ssh/id_rsa` and `~/.ssh/id_dsa` are tried where they exist,
    /// then a password given in `TransferAccess.credentials`.
    public var privateKeyFile: String?
    /// The public key of `privateKeyFile` (libcurl's `SSH_PUBLIC_KEYFILE`). Default nil: the
    /// private key's file name with `.pub` where that file exists, else derived from the private key.
    public var publicKeyFile: String?
    /// The passphrase of an encrypted `privateKeyFile`. Default nil: none.
    public var keyPassphrase: String?
    /// The OpenSSH known hosts file the server's host key must be in. Default nil:
    /// `~/.ssh/known_hosts`.
    public var knownHostsFile: String?
    /// Whether a server whose host is not in the known hosts file is trusted, and its key added
    /// to the file (as `ssh -o StrictHostKeyChecking=accept-new`). A host that is there with
    /// another key is refused all the same. Default false: an unknown host is refused.
    public var acceptsNewHost = false

    /// The defaults: the user's keys and known hosts, unknown hosts refused.
    public init() {}

    /// `knownHostsFile`, else `~/.ssh/known_hosts` of `home` (nil when there is no home).
    func knownHosts(home: String?) -> String? {
        knownHostsFile ?? home.map { $0 + "/.ssh/known_hosts" }
    }

    /// `publicKeyFile`, else `privateKeyFile` with `.pub` when `exists` says there is such a
    /// file; nil leaves libcurl to derive it from the private key.
    func publicKey(exists: (String) -> Bool) -> String? {
        if let publicKeyFile { return publicKeyFile }
        guard let privateKeyFile, exists(privateKeyFile + ".pub") else { return nil }
        return privateKeyFile + ".pub"
    }
}
