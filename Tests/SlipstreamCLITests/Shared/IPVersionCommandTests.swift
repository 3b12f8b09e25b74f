import Foundation
import Testing
import TestSupport

/// A host answering on the IPv6 loopback `[::1]` (the access tests' nginx), and `-4`/`-6`.
@Suite struct IPVersionCommandTests {
    /// Whether the machine has the IPv6 loopback address (::1), as the kernel lists it.
    static let hasIPv6Loopback =
        (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8))?.split(separator: "\n")
        .contains { $0.hasPrefix("00000000000000000000000000000001 ") } ?? false

    @Test(.enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback (::1 in /proc/net/if_inet6)"))
    func aServerOnTheIPv6LoopbackServesASegmentedDownload() async throws {
        let servers = try await TestAccessServers.shared()
        let port = try #require(servers.http6Port, "scripts/access-servers.sh found no IPv6 loopback")
        let source = try servers.makeFile("cli-v6.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = "http://[::1]:\(port)/files/cli-v6.bin"
        let output = try await CommandRunner.run(["get", "-q", "-n", "4", url], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/cli-v6.bin", source))
        let six = try await CommandRunner.run(["get", "-q", "--force", "-6", url], in: folder)
        #expect(six.status == 0, "\(six.stderr)")
        // IPv4 only: an IPv6 address cannot be reached.
        let four = try await CommandRunner.run(["get", "-q", "--force", "--retries", "0", "-4", url], in: folder)
        #expect(four.status == 3, "\(four.stderr)")
    }

    @Test func ipv6OnlyCannotReachAnIPv4Address() async throws {
        let servers = try await TestAccessServers.shared()
        try servers.makeFile("cli-v4.bin", size: 1000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let four = try await CommandRunner.run(["get", "-q", "-4", servers.url("cli-v4.bin")], in: folder)
        #expect(four.status == 0, "\(four.stderr)")
        let six = try await CommandRunner.run(["get", "-q", "--force", "--retries", "0", "--ipv6", servers.url("cli-v4.bin")], in: folder)
        #expect(six.status == 3, "\(six.stderr)")
    }
}
