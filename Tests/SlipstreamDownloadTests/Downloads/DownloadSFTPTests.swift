import Foundation
import SlipstreamHTTP
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Downloads over SFTP from OpenSSH's sshd (`scripts/ftp-servers.sh`), by key, with the host
/// checked against a known hosts file: segmented and exact, resumed, started over when the
/// file changed, and refused with a clear error for an unknown or changed host and a wrong key.
@Suite struct DownloadSFTPTests: RemoteFileDownloads {
    static let size = 4 << 20

    /// Four connections, the test key and known hosts.
    func configuration(
        _ servers: TestFTPServers, _ configure: (inout DownloadConfiguration) -> Void = { _ in }
    ) -> DownloadConfiguration {
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 256 << 10
        configuration.access.ssh.privateKeyFile = servers.sshKey
        configuration.access.ssh.knownHostsFile = servers.knownHosts
        configure(&configuration)
        return configuration
    }

    /// The download's error; a recorded issue when it succeeds.
    func failure(_ url: String, _ configuration: DownloadConfiguration) async throws -> DownloadError? {
        do {
            let (_, folder) = try await download(url, configuration)
            try? FileManager.default.removeItem(atPath: folder)
            Issue.record("the download succeeded")
            return nil
        } catch let error as DownloadError {
            return error
        }
    }

    @Test func segmentedSFTPByKeyIsByteExact() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-seg")
        let (result, folder) = try await download(servers.sftpURL(file.name), configuration(servers))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
    }

    /// The key's public half is derived from the private key (no `.pub` beside it here), and an
    /// encrypted key is opened with its passphrase.
    @Test func aKeyWithAPassphrase() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-passphrase", size: 1 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key = folder + "/key"
        try FileManager.default.copyItem(atPath: servers.sshPassphraseKey, toPath: key)
        let (result, out) = try await download(
            servers.sftpURL(file.name),
            configuration(servers) {
                $0.access.ssh.privateKeyFile = key
                $0.access.ssh.keyPassphrase = servers.sshPassphrase
            })
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(TestFiles.equal(result.path, file.path))
    }

    /// Also when a download that trusted the host left its connection open: that connection is
    /// not reused by a transfer that trusts hosts otherwise (libcurl would not check again).
    @Test func anUnknownHostIsRefused() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-unknown", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (trusted, out) = try await download(servers.sftpURL(file.name), configuration(servers) { $0.connections = 1 })
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(TestFiles.equal(trusted.path, file.path))
        let knownHosts = folder + "/known_hosts"
        #expect(FileManager.default.createFile(atPath: knownHosts, contents: Data()))
        let error = try await failure(servers.sftpURL(file.name), configuration(servers) { $0.access.ssh.knownHostsFile = knownHosts })
        #expect(error?.code == .network)
        #expect(error?.http?.code == .unknownHostKey)
        #expect(error?.message.contains("is not in \(knownHosts)") == true, "\(error?.message ?? "")")
    }

    /// Told to, an unknown host is accepted and added to the file; the next download finds it there.
    @Test func aNewHostIsAcceptedWhenToldTo() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-accept", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let knownHosts = folder + "/known_hosts"
        let (result, out) = try await download(
            servers.sftpURL(file.name),
            configuration(servers) {
                $0.connections = 1
                $0.access.ssh.knownHostsFile = knownHosts
                $0.access.ssh.acceptsNewHost = true
            })
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(TestFiles.equal(result.path, file.path))
        let written = try String(contentsOfFile: knownHosts, encoding: .utf8)
        // libcurl 7.88 writes the host without its port (`127.0.0.1 ssh-ed25519 ...`); later ones `[host]:port`.
        let hostKey = try String(contentsOfFile: servers.knownHosts, encoding: .utf8).split { $0 == " " || $0 == "\n" }[1...2]
        #expect(written.contains(hostKey.joined(separator: " ")) && written.contains("127.0.0.1"), "\(written)")
        let (again, out2) = try await download(
            servers.sftpURL(file.name), configuration(servers) { $0.access.ssh.knownHostsFile = knownHosts })
        defer { try? FileManager.default.removeItem(atPath: out2) }
        #expect(TestFiles.equal(again.path, file.path))
    }

    /// The known hosts file has another key for the host: refused, even when new hosts are accepted.
    @Test func aChangedHostKeyIsRefused() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-changed-host", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let knownHosts = folder + "/known_hosts"
        let otherKey = try String(contentsOfFile: servers.sshOtherKey + ".pub", encoding: .utf8).split(separator: " ").prefix(2)
        try "[127.0.0.1]:\(servers.sftpPort) \(otherKey.joined(separator: " "))\n".write(
            toFile: knownHosts, atomically: true, encoding: .utf8)
        let error = try await failure(
            servers.sftpURL(file.name),
            configuration(servers) {
                $0.access.ssh.knownHostsFile = knownHosts
                $0.access.ssh.acceptsNewHost = true
            })
        #expect(error?.http?.code == .hostKeyMismatch, "\(error?.message ?? "")")
    }

    @Test func aKeyTheServerDoesNotTakeIsRefused() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-wrong-key", size: 1000)
        let error = try await failure(
            servers.sftpURL(file.name), configuration(servers) { $0.access.ssh.privateKeyFile = servers.sshOtherKey })
        #expect(error?.code == .httpStatus)
        #expect(error?.http?.code == .loginDenied)
        #expect(error?.message.contains("refused the login") == true, "\(error?.message ?? "")")
    }

    @Test func resumeAfterAnInterruption() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-resume", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/r.bin"
        try await DownloadFTPTests.interrupt(servers.sftpURL(file.name), to: path, after: 1 << 20, configuration(servers))
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        let (result, notices) = try await DownloadFTPTests.finish(servers.sftpURL(file.name), to: path, configuration(servers))
        #expect(notices.isEmpty, "\(notices)")
        #expect(result.resumedBytes > 0 && result.bytesReceived < 8 << 20, "\(result)")
        #expect(TestFiles.equal(path, file.path))
    }

    @Test func aChangedRemoteFileOnResumeStartsOver() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "sftp-changed", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/c.bin"
        try await DownloadFTPTests.interrupt(servers.sftpURL(file.name), to: path, after: 1 << 20, configuration(servers))
        try Data(TestFiles.randomBytes(8 << 20, seed: 79)).write(to: URL(fileURLWithPath: file.path))
        var times = [timeval(tv_sec: time(nil) + 100, tv_usec: 0), timeval(tv_sec: time(nil) + 100, tv_usec: 0)]
        #expect(utimes(file.path, &times) == 0)
        let (result, notices) = try await DownloadFTPTests.finish(servers.sftpURL(file.name), to: path, configuration(servers))
        #expect(notices.contains { $0.contains("Last-Modified changed") }, "\(notices)")
        #expect(result.resumedBytes == 0)
        #expect(TestFiles.equal(path, file.path))
    }
}
