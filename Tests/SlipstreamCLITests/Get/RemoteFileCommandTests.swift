import Foundation
import Testing
import TestSupport

/// `get` of ftp://, ftps:// and sftp:// URLs, run as a user would against pyftpdlib and sshd.
@Suite struct RemoteFileCommandTests {
    func run(_ arguments: [String], in folder: String) async throws -> CommandRunner.Output {
        try await CommandRunner.run(arguments, in: folder)
    }

    @Test func getOverFTPWithUserOrNetrcAndFTPS() async throws {
        let servers = try await TestFTPServers.shared()
        let source = try servers.makeFile("cli-ftp.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let user = try await run(["get", "-q", "-n", "4", "--user", "test:secret", servers.ftpURL("cli-ftp.bin")], in: folder)
        #expect(user.status == 0, "\(user.stderr)")
        #expect(TestFiles.equal(folder + "/cli-ftp.bin", source))
        try "machine 127.0.0.1\n  login test\n  password secret\n".write(
            toFile: folder + "/netrc", atomically: true, encoding: .utf8)
        let explicit = try await run(
            [
                "get", "-q", "--force", "--netrc-file", "netrc", "--ftp-ssl", "--cacert", servers.caFile,
                servers.ftpURL("cli-ftp.bin", port: servers.explicitTLSPort),
            ], in: folder)
        #expect(explicit.status == 0, "\(explicit.stderr)")
        #expect(TestFiles.equal(folder + "/cli-ftp.bin", source))
        let wrong = try await run(["get", "-q", "--force", "--user", "test:nope", servers.ftpURL("cli-ftp.bin")], in: folder)
        #expect(wrong.status == 4 && wrong.stderr.contains("refused the login"), "\(wrong.stderr)")
    }

    @Test func getOverSFTPByKeyAndAnUnknownHostIsRefusedWithAdvice() async throws {
        let servers = try await TestFTPServers.shared()
        let source = try servers.makeFile("cli-sftp.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = servers.sftpURL("cli-sftp.bin")
        let key = ["--ssh-key", servers.sshKey]
        let got = try await run(["get", "-q", "-n", "4", "--known-hosts", servers.knownHosts] + key + [url], in: folder)
        #expect(got.status == 0, "\(got.stderr)")
        #expect(TestFiles.equal(folder + "/cli-sftp.bin", source))
        let unknown = try await run(["get", "-q", "--force", "--known-hosts", folder + "/none"] + key + [url], in: folder)
        #expect(unknown.status == 3, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("--ssh-accept-new-host"), "\(unknown.stderr)")
        let accepted = try await run(
            ["get", "-q", "--force", "--known-hosts", folder + "/new_hosts", "--ssh-accept-new-host"] + key + [url], in: folder)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let passphrase = try await run(
            [
                "get", "-q", "--force", "--known-hosts", servers.knownHosts, "--ssh-key", servers.sshPassphraseKey,
                "--ssh-key-passphrase", servers.sshPassphrase, url,
            ], in: folder)
        #expect(passphrase.status == 0, "\(passphrase.stderr)")
        let missingKey = try await run(["get", "-q", "--ssh-key", folder + "/no-key", url], in: folder)
        #expect(missingKey.status == 5 && missingKey.stderr.contains("cannot be read"), "\(missingKey.stderr)")
    }
}
