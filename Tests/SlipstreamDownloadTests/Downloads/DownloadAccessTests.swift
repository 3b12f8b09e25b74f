import Foundation
import Testing
import SlipstreamHTTP
import TestSupport
@testable import SlipstreamDownload

/// Segmented downloads behind TLS with a private CA, a login and a cookie, from the access
/// tests' nginx: every connection gets in, and the login never reaches a server a redirect
/// leads to.
@Suite struct DownloadAccessTests {
    static let size = 4 << 20

    /// A configuration for four connections on a 4 MiB file.
    func configuration(_ configure: (inout DownloadConfiguration) -> Void) -> DownloadConfiguration {
        var configuration = DownloadConfiguration()
        configuration.connections = 4
        configuration.minimumSplitSize = 256 << 10
        configure(&configuration)
        return configuration
    }

    func download(_ url: String, _ configuration: DownloadConfiguration) async throws -> (DownloadResult, String) {
        let folder = try TestFiles.makeTemporaryFolder()
        let result = try await Downloader(configuration: configuration).start(url, to: .folder(folder)).value
        return (result, folder)
    }

    /// A file name of this run's own, to find its requests in the log.
    func uniqueFile(_ servers: TestAccessServers, _ stem: String) throws -> (name: String, path: String) {
        let name = "\(stem)-\(UInt32.random(in: 0...UInt32.max)).bin"
        return (name, try servers.makeFile(name, size: Self.size))
    }

    @Test func segmentedOverHTTP2WithAPrivateCA() async throws {
        let servers = try await TestAccessServers.shared()
        let file = try uniqueFile(servers, "dl-tls")
        let (result, folder) = try await download(
            servers.url(file.name, port: servers.tlsPort, tls: true), configuration { $0.access.security.caFile = servers.caFile })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let lines = try servers.logLines(forTargetsStartingWith: "/files/\(file.name)")
        #expect(lines.count > 1 && lines.allSatisfy { $0.hasSuffix("HTTP/2.0") })
    }

    @Test func anUnknownCAFailsAsTLSWithTheCheckNamed() async throws {
        let servers = try await TestAccessServers.shared()
        let file = try uniqueFile(servers, "dl-tls-refused")
        do {
            _ = try await download(servers.url(file.name, port: servers.tlsPort, tls: true), configuration { _ in })
            Issue.record("the download succeeded")
        } catch let error as DownloadError {
            #expect(error.code == .network)
            #expect(error.http?.tlsProblem == .unknownAuthority)
            #expect(error.message.contains("not signed by a trusted certificate authority"), "\(error.message)")
        }
    }

    @Test func everyConnectionLogsIn() async throws {
        let servers = try await TestAccessServers.shared()
        let file = try uniqueFile(servers, "dl-login")
        let (result, folder) = try await download(
            servers.url(file.name, location: "basic"),
            configuration { $0.access.credentials = Credentials(user: "test", password: "secret") })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let answered = try servers.logLines(forTargetsStartingWith: "/basic/\(file.name)").filter { $0.contains("\" 206 ") }
        #expect(answered.count > 1 && answered.allSatisfy { $0.contains("\"Basic ") })
    }

    /// A Digest login (lighttpd), negotiated by every connection.
    @Test func everyConnectionNegotiatesADigestLogin() async throws {
        let servers = try await TestAccessServers.shared()
        let port = try #require(servers.digestPort, "lighttpd is not installed (scripts/setup.sh installs it)")
        let file = try uniqueFile(servers, "dl-digest")
        let (result, folder) = try await download(
            servers.url(file.name, port: port), configuration { $0.access.credentials = Credentials(user: "test", password: "secret") })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        // (lighttpd asks every request for the login: each connection negotiated it. Its access
        // log is written in batches, so it is not read here.)
    }

    /// After a redirect to another server, the download's further connections go straight to
    /// the URL it led to, and none of them carries the login.
    @Test func theLoginNeverReachesTheServerARedirectLeadsTo() async throws {
        let servers = try await TestAccessServers.shared()
        let file = try uniqueFile(servers, "dl-away")
        let (result, folder) = try await download(
            servers.url(file.name, location: "basic-away"),
            configuration { $0.access.credentials = Credentials(user: "test", password: "secret", methods: .basic) })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let other = try servers.logLines(forTargetsStartingWith: "/files/\(file.name)")
        #expect(other.count > 1)
        #expect(other.allSatisfy { $0.hasPrefix("\(servers.otherPort) ") && $0.contains(" \"-\" \"-\" ") }, "\(other)")
    }

    /// The cookie /login/ sets on its redirect is sent by every connection, which /cookie/
    /// demands of each request.
    @Test func everyConnectionSendsTheCookieAServerSet() async throws {
        let servers = try await TestAccessServers.shared()
        let file = try uniqueFile(servers, "dl-cookie")
        let jarFolder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: jarFolder) }
        let (result, folder) = try await download(
            servers.url(file.name, location: "login"),
            configuration { $0.access.cookies = CookieSession(savingTo: jarFolder + "/jar.txt") })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(result.segmented)
        #expect(TestFiles.equal(result.path, file.path))
        let guarded = try servers.logLines(forTargetsStartingWith: "/cookie/\(file.name)")
        #expect(guarded.count > 1 && guarded.allSatisfy { $0.contains("\" 206 ") && $0.contains("\"pass=open-sesame\"") }, "\(guarded)")
        #expect(try String(contentsOfFile: jarFolder + "/jar.txt", encoding: .utf8).contains("\tpass\topen-sesame"))
    }
}
