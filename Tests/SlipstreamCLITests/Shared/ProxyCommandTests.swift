import Foundation
import Testing
import TestSupport

/// `get --proxy` through real proxies on loopback: tinyproxy (HTTP, and HTTPS by CONNECT) and
/// Dante's danted (SOCKS5, with the name resolved by the client or by the proxy).
@Suite struct ProxyCommandTests {
    /// A 3 MiB file of this run's own on the access servers.
    func file(_ servers: TestAccessServers, _ stem: String) throws -> (name: String, path: String) {
        let name = "\(stem)-\(UInt32.random(in: 0...UInt32.max)).bin"
        return (name, try servers.makeFile(name, size: 3 << 20))
    }

    func get(_ arguments: [String], _ file: (name: String, path: String)) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", "-q", "-n", "4", "--min-split-size", "256K"] + arguments, in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/" + file.name, file.path))
    }

    @Test func segmentedThroughTinyproxy() async throws {
        let servers = try await TestAccessServers.shared()
        let port = try #require(servers.httpProxyPort, "tinyproxy is not installed (scripts/setup.sh installs it)")
        let plain = try file(servers, "proxy-http")
        try await get(["--proxy", "http://127.0.0.1:\(port)", servers.url(plain.name)], plain)
        // Every request nginx answered came through the proxy, which logged each.
        let answered = try servers.logLines(forTargetsStartingWith: "/files/\(plain.name)")
        let proxied = try String(contentsOfFile: servers.tinyproxyLogPath, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("GET http://127.0.0.1:\(servers.httpPort)/files/\(plain.name) ") }
        #expect(answered.count > 1 && proxied.count == answered.count, "\(answered.count) answered, \(proxied.count) proxied")

        let tls = try file(servers, "proxy-https")
        try await get(
            ["--proxy", "http://127.0.0.1:\(port)", "--cacert", servers.caFile, servers.url(tls.name, port: servers.tlsPort, tls: true)],
            tls)
        let tunnels = try String(contentsOfFile: servers.tinyproxyLogPath, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("CONNECT 127.0.0.1:\(servers.tlsPort) ") }
        #expect(!tunnels.isEmpty)
    }

    @Test(arguments: ["socks5", "socks5h"])
    func segmentedThroughDante(scheme: String) async throws {
        let servers = try await TestAccessServers.shared()
        let port = try #require(servers.socksPort, "danted is not installed (scripts/setup.sh installs dante-server)")
        let plain = try file(servers, "proxy-\(scheme)")
        try await get(["--proxy", "\(scheme)://127.0.0.1:\(port)", servers.url(plain.name)], plain)
        // nginx saw each request come from a port Dante connected from.
        let clientPorts = try servers.logLines(forTargetsStartingWith: "/files/\(plain.name)").map { $0.split(separator: " ")[1] }
        let dante = try String(contentsOfFile: servers.dantedLogPath, encoding: .utf8)
        #expect(clientPorts.count > 1)
        #expect(clientPorts.allSatisfy { dante.contains("-> 127.0.0.1.\($0) 127.0.0.1.\(servers.httpPort)") }, "\(clientPorts)")
    }
}
