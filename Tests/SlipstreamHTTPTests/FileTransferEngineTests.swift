import Foundation
import Testing
import TestSupport
@testable import SlipstreamHTTP

/// The engine's FTP and SFTP transfers against pyftpdlib and sshd: ranges end where asked
/// (libcurl is asked for the rest of the file, to learn its size), heads read as ranges.
@Suite struct FileTransferEngineTests {
    @Test func aBoundedFTPRangeEndsWhereAsked() async throws {
        let servers = try await TestFTPServers.shared()
        try servers.makeFile("engine-range.bin", size: 100_000)
        var request = HTTPRequest(url: servers.ftpURL("engine-range.bin"))
        request.allowsFileProtocols = true
        request.access.credentials = Credentials(user: "test", password: "secret")
        request.range = .init(start: 1000, end: 1999)
        let response = try await HTTPEngine.shared.fetch(request)
        #expect(response.head.status == 206)
        #expect(response.head.contentRange == ContentRange(range: 1000...99_999, total: 100_000))
        // A bounded range (a download's segment) does not ask for the modification time (MDTM).
        #expect(response.head.lastModified == nil)
        let file = try #require(FileManager.default.contents(atPath: servers.root + "/engine-range.bin"))
        #expect(response.body == Array(file[1000..<2000]))
    }

    @Test func aBoundedSFTPRangeEndsWhereAsked() async throws {
        let servers = try await TestFTPServers.shared()
        try servers.makeFile("engine-range-sftp.bin", size: 100_000)
        var request = HTTPRequest(url: servers.sftpURL("engine-range-sftp.bin"))
        request.allowsFileProtocols = true
        request.access.ssh.privateKeyFile = servers.sshKey
        request.access.ssh.knownHostsFile = servers.knownHosts
        request.range = .init(start: 99_000, end: 99_499)
        let response = try await HTTPEngine.shared.fetch(request)
        #expect(response.head.status == 206)
        #expect(response.head.contentRange?.total == 100_000)
        let file = try #require(FileManager.default.contents(atPath: servers.root + "/engine-range-sftp.bin"))
        #expect(response.body == Array(file[99_000..<99_500]))
    }

    /// An FTP connection closed to make room in the connection cache is closed with the handle
    /// of the transfer that needs the room (libcurl sends QUIT and stores the `221` reply as
    /// that handle's response code): an empty HTTP body's head still has its own status.
    @Test func anFTPConnectionClosedForRoomLeavesTheHTTPStatusAlone() async throws {
        let servers = try await TestFTPServers.shared()
        try servers.makeFile("engine-room.bin", size: 1000)
        try TestNginx.makeFile("engine-empty.bin", size: 0)
        var configuration = HTTPEngine.Configuration()
        configuration.connectionCacheSize = 1
        let engine = HTTPEngine(configuration: configuration)
        defer { engine.shutdown() }
        var ftp = HTTPRequest(url: servers.ftpURL("engine-room.bin"))
        ftp.allowsFileProtocols = true
        ftp.access.credentials = Credentials(user: "test", password: "secret")
        let empty = HTTPRequest(url: try TestNginx.url("engine-empty.bin"))
        // Rounds of an FTP transfer and two HTTP ones (the cache then holds more than it may,
        // and the oldest idle connection, the FTP one, is closed as an HTTP transfer ends).
        for _ in 0..<3 {
            #expect(try await engine.fetch(ftp).body.count == 1000)
            for request in [empty, HTTPRequest(url: empty.url.replacingOccurrences(of: "127.0.0.1", with: "localhost"))] {
                let response = try await engine.fetch(request)
                #expect(response.head.status == 200 && response.body.isEmpty, "\(response.head.status)")
            }
        }
    }
}
