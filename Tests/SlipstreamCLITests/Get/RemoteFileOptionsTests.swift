import SlipstreamHTTP
import Testing
@testable import slipstream

/// Parsing of `get`'s SSH and FTP options.
@Suite struct RemoteFileOptionsTests {
    @Test func everyOption() throws {
        let options = try GetOptions.parse([
            "--ssh-key", "id", "--ssh-key-passphrase=p w", "--known-hosts", "kh", "--ssh-accept-new-host", "--ftp-ssl",
            "sftp://h/f",
        ])
        let ssh = options.remote.ssh
        #expect(ssh.privateKeyFile == "id" && ssh.keyPassphrase == "p w" && ssh.knownHostsFile == "kh")
        #expect(ssh.acceptsNewHost && options.remote.requiresFTPTLS)
    }

    @Test func theDefaults() throws {
        let options = try GetOptions.parse(["ftp://h/f"])
        #expect(options.remote == RemoteFileOptions())
        #expect(options.remote.ssh.knownHostsFile == nil && !options.remote.ssh.acceptsNewHost)
    }

    @Test(arguments: [["--ssh-key", "", "sftp://h/f"], ["--known-hosts=", "sftp://h/f"], ["--ftp-ssl=yes", "ftp://h/f"]])
    func badValuesAreUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { try GetOptions.parse(arguments) }
    }
}
