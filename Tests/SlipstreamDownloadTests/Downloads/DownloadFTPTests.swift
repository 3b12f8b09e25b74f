import Foundation
import Synchronization
import SlipstreamHTTP
import Testing
import TestSupport
@testable import SlipstreamDownload

/// Downloads over FTP and FTPS from pyftpdlib (`scripts/ftp-servers.sh`): segmented where the
/// server restarts transfers (`REST`), on one connection where it does not, resumed with the
/// same records, and started over when the remote file changed in between.
@Suite struct DownloadFTPTests: RemoteFileDownloads {
    static let size = 4 << 20

    /// Four connections, the test login.
    func configuration(_ configure: (inout DownloadConfiguration) -> Void = { _ in }) -> DownloadConfiguration {
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 256 << 10
        configuration.access.credentials = Credentials(user: "test", password: "secret")
        configure(&configuration)
        return configuration
    }

    /// pyftpdlib's log lines of transfers of `name` (`RETR ... completed=1|0`).
    func transfers(_ servers: TestFTPServers, _ name: String) throws -> [String] {
        try logLines(servers, name).filter { $0.contains("RETR ") && $0.contains("completed=") }
    }

    /// pyftpdlib's log lines that name `name`: its commands (with their reply codes) and transfers.
    func logLines(_ servers: TestFTPServers, _ name: String) throws -> [String] {
        try String(contentsOfFile: servers.ftpLog, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { $0.contains(name) }
    }

    @Test func segmentedFTPIsByteExact() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-seg")
        let (result, folder) = try await download(servers.ftpURL(file.name), configuration())
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(result.bytes == Int64(Self.size))
        #expect(TestFiles.equal(result.path, file.path))
        #expect(result.path.hasSuffix("/" + file.name))
        #expect(try transfers(servers, file.name).count > 1)
    }

    /// Only the first connection asks for the modification time (what a resume compares): the
    /// others, started for ranges, skip that round trip; each asks the size (a changed size fails
    /// the range) and restarts where its range starts. (A connection may be dropped after its
    /// size and before its transfer, as a loaded machine's slow one can be: counted by
    /// connection, every one that transferred asked the size.)
    @Test func onlyTheFirstConnectionAsksTheModificationTime() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-mdtm")
        let (result, folder) = try await download(servers.ftpURL(file.name), configuration())
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let lines = try logLines(servers, file.name)
        let transfers = lines.filter { $0.contains("completed=") }.count
        #expect(transfers > 1)
        #expect(lines.filter { $0.contains(" MDTM ") }.count == 1, "\(lines)")
        let connection = { (line: String) in line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") } }
        let sized = Set(lines.filter { $0.contains(" SIZE ") }.compactMap(connection))
        let fetched = Set(lines.filter { $0.contains(" RETR ") }.compactMap(connection))
        #expect(!fetched.isEmpty && fetched.isSubset(of: sized), "\(lines)")
    }

    @Test func aServerThatRefusesRESTGetsOneConnection() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-norest")
        let (result, folder) = try await download(servers.ftpURL(file.name, port: servers.noRestPort), configuration())
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(!result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let lines = try transfers(servers, file.name)
        #expect(lines.count == 1 && lines[0].contains("completed=1"), "\(lines)")
    }

    @Test(arguments: [false, true]) func ftpsExplicitAndImplicit(implicit: Bool) async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, implicit ? "ftps-implicit" : "ftps-explicit")
        let url =
            implicit
            ? servers.ftpURL(file.name, implicitTLS: true) : servers.ftpURL(file.name, port: servers.explicitTLSPort)
        let (result, folder) = try await download(
            url,
            configuration {
                $0.access.security.caFile = servers.caFile
                $0.access.requiresFTPTLS = !implicit
            })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
    }

    @Test func explicitFTPSChecksTheCertificate() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftps-untrusted", size: 1000)
        do {
            _ = try await download(
                servers.ftpURL(file.name, port: servers.explicitTLSPort), configuration { $0.access.requiresFTPTLS = true })
            Issue.record("the download succeeded")
        } catch let error as DownloadError {
            #expect(error.code == .network)
            #expect(error.http?.tlsProblem == .unknownAuthority, "\(error.message)")
        }
    }

    /// Without TLS where it is required, the server's lack of it fails the transfer.
    @Test func requiredTLSOnAPlainServerFails() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-notls", size: 1000)
        do {
            _ = try await download(servers.ftpURL(file.name), configuration { $0.access.requiresFTPTLS = true })
            Issue.record("the download succeeded")
        } catch let error as DownloadError {
            #expect(error.http?.code == .tls, "\(error.message)")
        }
    }

    /// Through tinyproxy (an HTTP proxy) and danted (SOCKS5): the control and data connections
    /// of every segment go through the proxy.
    @Test(arguments: ["http", "socks5"]) func throughAProxy(kind: String) async throws {
        let servers = try await TestFTPServers.shared()
        let access = try await TestAccessServers.shared()
        let port = try #require(
            kind == "http" ? access.httpProxyPort : access.socksPort, "tinyproxy and danted (scripts/setup.sh installs them)")
        let file = try uniqueFile(servers, "ftp-proxy-\(kind)")
        let (result, folder) = try await download(
            servers.ftpURL(file.name), configuration { $0.proxy = "\(kind)://127.0.0.1:\(port)" })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let log = try String(contentsOfFile: kind == "http" ? access.tinyproxyLogPath : access.dantedLogPath, encoding: .utf8)
        #expect(log.contains(String(servers.ftpPort)), "the proxy's log does not show the FTP server's port")
    }

    /// `timestamping`: the finished file gets MDTM's time; a second run is told the file is not
    /// modified (MDTM against `If-Modified-Since`) and leaves it alone; a newer remote file is fetched.
    @Test func timestampingByModificationTime() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-timestamping", size: 1 << 20)
        var times = [timeval(tv_sec: 1_700_000_000, tv_usec: 0), timeval(tv_sec: 1_700_000_000, tv_usec: 0)]
        #expect(utimes(file.path, &times) == 0)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let conditional = configuration { $0.timestamping = true }
        let first = try await Downloader(configuration: conditional).start(servers.ftpURL(file.name), to: .folder(folder)).value
        #expect(!first.notModified && TestFiles.equal(first.path, file.path))
        let stamp = try FileManager.default.attributesOfItem(atPath: first.path)[.modificationDate] as? Date
        #expect(stamp == Date(timeIntervalSince1970: 1_700_000_000))
        let second = try await Downloader(configuration: conditional).start(servers.ftpURL(file.name), to: .folder(folder)).value
        #expect(second.notModified)
        try Data(TestFiles.randomBytes(1 << 20, seed: 80)).write(to: URL(fileURLWithPath: file.path))
        let third = try await Downloader(configuration: conditional).start(servers.ftpURL(file.name), to: .folder(folder)).value
        #expect(!third.notModified && TestFiles.equal(third.path, file.path))
    }

    @Test func aWrongPasswordIsAClearError() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-login", size: 1000)
        do {
            _ = try await download(
                servers.ftpURL(file.name),
                configuration { $0.access.credentials = Credentials(user: "test", password: "wrong") })
            Issue.record("the download succeeded")
        } catch let error as DownloadError {
            #expect(error.code == .httpStatus)
            #expect(error.http?.code == .loginDenied)
            #expect(error.message.contains("refused the login"), "\(error.message)")
        }
    }

    @Test func aMissingFileIsNotRetried() async throws {
        let servers = try await TestFTPServers.shared()
        do {
            _ = try await download(servers.ftpURL("no-such-file.bin"), configuration())
            Issue.record("the download succeeded")
        } catch let error as DownloadError {
            #expect(error.code == .httpStatus)
            #expect(error.http?.code == .remoteFileNotFound, "\(error.message)")
        }
    }

    @Test func anEmptyFile() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-empty", size: 0)
        let (result, folder) = try await download(servers.ftpURL(file.name), configuration())
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.bytes == 0)
        #expect(TestFiles.equal(result.path, file.path))
    }

    /// Starts a download at 2 MiB/s and cancels it once `bytes` are written: from the writer's
    /// thread, which runs whatever the Swift concurrency pool is busy with (a loop over the
    /// events there may come too late on a loaded machine, after the download has finished).
    static func interrupt(_ url: String, to path: String, after bytes: Int, _ configuration: DownloadConfiguration) async throws {
        let running = Mutex<Download?>(nil)
        let written = Atomic(0)
        var slow = configuration
        slow.bytesPerSecondLimit = 2 << 20
        slow.beforeWrite = { _, count in
            if written.add(count, ordering: .relaxed).newValue >= bytes { running.withLock { $0.take() }?.cancel() }
        }
        let download = try Downloader(configuration: slow).start(url, to: .file(path))
        running.withLock { $0 = download }
        if written.load(ordering: .relaxed) >= bytes { download.cancel() }
        _ = try? await download.value
    }

    /// Runs a download to its end; its result and notices.
    static func finish(_ url: String, to path: String, _ configuration: DownloadConfiguration) async throws -> (DownloadResult, [String]) {
        let download = try Downloader(configuration: configuration).start(url, to: .file(path))
        var notices: [String] = []
        for await event in download.events {
            if case .notice(let text) = event { notices.append(text) }
        }
        return (try await download.value, notices)
    }

    @Test func resumeAfterAnInterruption() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-resume", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/r.bin"
        try await Self.interrupt(servers.ftpURL(file.name), to: path, after: 1 << 20, configuration())
        #expect(FileManager.default.fileExists(atPath: path + ".part.slipstream"))
        let (result, notices) = try await Self.finish(servers.ftpURL(file.name), to: path, configuration())
        #expect(notices.isEmpty, "\(notices)")
        #expect(result.resumedBytes > 0 && result.bytesReceived < 8 << 20, "\(result)")
        #expect(TestFiles.equal(path, file.path))
    }

    /// The remote file is replaced by another of the same size (a new modification time, as
    /// MDTM tells) between the interruption and the resume: the download starts over.
    @Test func aChangedRemoteFileOnResumeStartsOver() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-changed", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/c.bin"
        try await Self.interrupt(servers.ftpURL(file.name), to: path, after: 1 << 20, configuration())
        try Data(TestFiles.randomBytes(8 << 20, seed: 77)).write(to: URL(fileURLWithPath: file.path))
        var times = [timeval(tv_sec: time(nil) + 100, tv_usec: 0), timeval(tv_sec: time(nil) + 100, tv_usec: 0)]
        #expect(utimes(file.path, &times) == 0)
        let (result, notices) = try await Self.finish(servers.ftpURL(file.name), to: path, configuration())
        #expect(notices.contains { $0.contains("Last-Modified changed") }, "\(notices)")
        #expect(result.resumedBytes == 0)
        #expect(TestFiles.equal(path, file.path))
    }

    /// The remote file grew: the resume's size check starts over.
    @Test func aRemoteFileOfAnotherSizeOnResumeStartsOver() async throws {
        let servers = try await TestFTPServers.shared()
        let file = try uniqueFile(servers, "ftp-grown", size: 8 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/g.bin"
        try await Self.interrupt(servers.ftpURL(file.name), to: path, after: 1 << 20, configuration())
        try Data(TestFiles.randomBytes(9 << 20, seed: 78)).write(to: URL(fileURLWithPath: file.path))
        let (result, notices) = try await Self.finish(servers.ftpURL(file.name), to: path, configuration())
        #expect(notices.contains { $0.contains("starting over") }, "\(notices)")
        #expect(result.resumedBytes == 0)
        #expect(TestFiles.equal(path, file.path))
    }
}
