import Foundation
import Testing
import TestSupport
@testable import slipstream

/// `slipstream get URL MIRROR... --same-file`.
@Suite struct MirrorCommandTests {
    @Test func urlsAfterTheFirstAreMirrorsWithSameFile() throws {
        let options = try GetOptions.parse(["http://a/f", "--same-file", "http://b/f", "http://c/f"])
        #expect(options.url == "http://a/f")
        #expect(options.configuration.mirrors == ["http://b/f", "http://c/f"])
        #expect(try GetOptions.parse(["http://a/f"]).configuration.mirrors.isEmpty)
    }

    @Test(
        arguments: [
            (["get", "--same-file", "http://a/f"], "--same-file needs two or more URLs of the same file"),
            (["get", "--same-file=yes", "http://a/f", "http://b/f"], "--same-file takes no value"),
        ] as [([String], String)])
    func badMirrorArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(arguments, in: folder)
        #expect(output.status == 2)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func aFileFromTwoMirrorsAndOneThatIsMissing() async throws {
        let name = "cli-mirrored-6m.bin"
        let source = try TestNginx.makeFile(name, size: 6 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = "http://127.0.0.1:\(try TestNginx.port())/files/cli-no-such-mirror.bin"
        // Both real sources held to 1 MiB/s a connection (nginx lets a second's worth go at
        // once, then the rest takes about a second): with the second one unthrottled, a loaded
        // machine once saw the whole file saved before the missing mirror's 404 came back, and
        // nothing was told of it.
        let output = try await CommandRunner.run(
            [
                "get", "-n", "4", try TestNginx.url(name, location: "rate", query: "rate=1m"),
                try TestNginx.url(name, location: "rate", query: "rate=1m&copy=2"), missing, "--same-file",
            ], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/" + name, source))
        #expect(output.stderr.hasPrefix("slipstream: mirror \(missing) failed: "), "\(output.stderr)")
        #expect(output.stderr.contains("\nsaved \(name): 6.00 MiB in "), "\(output.stderr)")
        // The second source served a part (the access log has its query; the first's differs).
        #expect(try TestNginx.requests(to: "/rate/\(name)?rate=1m&copy=2").reduce(0) { $0 + $1.bytes } > 0)
    }
}
