import Foundation
import Testing
import TestSupport

/// The built binary, run as a user would.
@Suite struct GetCommandTests {
    @Test func downloadsIntoTheCurrentFolderAndSaysSo() async throws {
        let source = try TestNginx.makeFile("cli-3m.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", "-n", "4", try TestNginx.url("cli-3m.bin")], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/cli-3m.bin", source))
        // Not a terminal: no status line, one summary line.
        #expect(output.stderr.hasPrefix("saved cli-3m.bin: 3.00 MiB in "))
        #expect(output.stderr.split(separator: "\n").count == 1)
        #expect(!output.stderr.contains("\r"))
        #expect(output.stdout.isEmpty)
    }

    @Test func segmentedDownloadThroughAProxy() async throws {
        let source = try TestNginx.makeFile("cli-proxied-3m.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["get", "-q", "-n", "4", "--proxy", try TestNginx.proxyURL(), try TestNginx.url("cli-proxied-3m.bin")], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(TestFiles.equal(folder + "/cli-proxied-3m.bin", source))
        // Every request went through the proxy: in nginx's shared access log the proxy's lines carry
        // the absolute-form request line, the origin's the path, one of each per request.
        let log = try String(contentsOfFile: try TestNginx.filesFolder() + "/../../access.log", encoding: .utf8)
        let lines = log.split(separator: "\n").filter { $0.contains("cli-proxied-3m.bin") }
        let viaProxy = lines.filter { $0.contains("\"GET http://127.0.0.1") }.count
        #expect(viaProxy >= 1)
        #expect(viaProxy * 2 == lines.count)
    }

    @Test func outputOptionForceAndQuiet() async throws {
        let source = try TestNginx.makeFile("cli-small.bin", size: 5000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("cli-small.bin")
        let first = try await CommandRunner.run(["get", "-q", "-o", "named.bin", url], in: folder)
        #expect(first.status == 0 && first.stderr.isEmpty)
        #expect(TestFiles.equal(folder + "/named.bin", source))

        let again = try await CommandRunner.run(["get", "--output=named.bin", url], in: folder)
        #expect(again.status == 5)
        #expect(again.stderr == "slipstream: named.bin already exists; use --force to replace it\n")

        let forced = try await CommandRunner.run(["get", "-q", "--force", "-onamed.bin", url], in: folder)
        #expect(forced.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["named.bin"])
    }

    @Test(
        arguments: [
            (["get"], "get needs a URL"),
            (["get", "-n", "0", "http://x/"], "-n must be a whole number from 1 to 64, not '0'"),
            (["get", "--connections=65", "http://x/"], "--connections must be a whole number from 1 to 64"),
            (["get", "--min-split-size", "1X", "http://x/"], "--min-split-size must be a size like 512K"),
            (["get", "-H", "NoColon", "http://x/"], "-H must look like 'Name: value'"),
            (["get", "--proxy", "gopher://p", "http://x/"], "--proxy must start with one of"),
            (["get", "--frobnicate", "http://x/"], "unknown option --frobnicate"),
            (["get", "-o", "x", "http://a/", "http://b/"], "-o names the file of one URL"),
            (["get", "-j", "0", "http://x/", "http://y/"], "-j must be a whole number from 1 to 100"),
            (["get", "--connect-timeout", "-1", "http://x/"], "--connect-timeout must be a number of seconds"),
            (["get", "-o"], "-o needs a value"),
            (["get", "--checksum", "sha256=12", "http://x/"], "--checksum must look like sha256=HEX"),
            (["get", "--retries", "-1", "http://x/"], "--retries must be a whole number from 0 to 100"),
            (["fetch"], "unknown command 'fetch'"),
            ([], "no command given"),
            (["get", "gopher://127.0.0.1/x"], "not an http, https, ftp, ftps or sftp URL"),
            (["get", "http://[::1"], "http://[::1: no host, or a malformed one, in the URL"),
            // (Was tried as a network failure, with retries, for 11 s.)
            (["get", "http:///x"], "http:///x: a URL without a host"),
        ] as [([String], String)])
    func usageErrorsExitWithStatus2(arguments: [String], message: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(arguments, in: folder)
        #expect(output.status == 2)
        #expect(output.stderr.hasPrefix("slipstream: "))
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// `FILE.part` is a folder: a clear error before any request, without the advice to
    /// resume from it (which a failed write got).
    @Test func aPartFileNameTakenByAFolderIsAClearError() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/x.part", withIntermediateDirectories: false)
        try TestNginx.makeFile("cli-part-folder.bin", size: 1 << 20)
        let output = try await CommandRunner.run(["get", "-q", "-o", "x", try TestNginx.url("cli-part-folder.bin")], in: folder)
        #expect(output.status == 5)
        #expect(output.stderr.contains("x.part is a folder"), "\(output.stderr)")
        #expect(!output.stderr.contains("resume"), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x.part"])
    }

    /// Past `ulimit -f` (in blocks of 512 bytes): a clear disk error, status 5, no advice to
    /// free space or resume, and nothing left. A body without a length (gzip on the fly),
    /// written by the writer thread as it comes, made the process die by SIGXFSZ without a
    /// word; a large file's reservation was "not enough space", with an empty `.part` left to
    /// resume from.
    @Test(arguments: [(200_000, 100, false), (4 << 20, 2048, false), (3 << 20, 2048, true)])
    func aFileSizeLimitIsAClearDiskError(size: Int, blocks: Int, gzip: Bool) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestNginx.makeFile("cli-ulimit-\(size).bin", size: size)
        let url = try TestNginx.url("cli-ulimit-\(size).bin", location: gzip ? "gzip" : "files")
        let compressed = gzip ? ["-H", "Accept-Encoding: gzip"] : []
        let output = try await CommandRunner.run(
            ["get", "-q", "-o", "big.bin"] + compressed + [url], in: folder, ulimit: "-f \(blocks)")
        #expect(output.status == 5, "\(output.stderr)")
        #expect(output.stderr.contains("big.bin.part") && output.stderr.contains("ulimit -f"), "\(output.stderr)")
        #expect(!output.stderr.contains("resume") && !output.stderr.contains("space"), "\(output.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// A run with a URL loads libcurl on the shared engine's thread from the start; one that ends at
    /// once (a usage error) waits for that before it exits (it crashed 1 time in 15 before).
    @Test func aRunThatEndsAtOnceNeverCrashesWhileLibcurlLoads() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for _ in 0..<60 {
            let output = try await CommandRunner.run(["get", "-H", "NoColon", "http://x/"], in: folder)
            #expect(output.status == 2, "\(output.stderr)")
        }
    }

    @Test func helpAndVersion() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let help = try await CommandRunner.run(["get", "--help"], in: folder)
        #expect(help.status == 0 && help.stdout.contains("--connections N"))
        let version = try await CommandRunner.run(["--version"], in: folder)
        #expect(version.status == 0 && version.stdout.hasPrefix("slipstream "))
    }

    @Test func aChecksumMismatchExitsWith7AndKeepsThePart() async throws {
        try TestNginx.makeFile("cli-small.bin", size: 5000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["get", "--checksum", "md5=" + String(repeating: "f", count: 32), try TestNginx.url("cli-small.bin")], in: folder)
        #expect(output.status == 7)
        #expect(output.stderr.hasPrefix("slipstream: cli-small.bin.part: the md5 checksum is "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["cli-small.bin.part"])
    }

    @Test func notFoundExitsWith4AndLeavesNothing() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("cli-missing.bin")
        let output = try await CommandRunner.run(["get", url], in: folder)
        #expect(output.status == 4)
        #expect(output.stderr == "slipstream: \(url): the server answered HTTP 404 Not Found\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func unreachableServerExitsWith3() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(["get", "http://127.0.0.1:1/x.bin"], in: folder)
        #expect(output.status == 3)
        #expect(output.stderr.contains("http://127.0.0.1:1/x.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test(arguments: ["folder-is-output", "missing-folder", "read-only-fs"])
    func badOutputPathsExitWith5(kind: String) async throws {
        try TestNginx.makeFile("cli-small.bin", size: 5000)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target =
            switch kind {
            case "folder-is-output": folder
            case "missing-folder": folder + "/no/such/x.bin"
            default: "/proc/x.bin"  // a filesystem nobody (root included) can create files in
            }
        let output = try await CommandRunner.run(["get", "-o", target, try TestNginx.url("cli-small.bin")], in: folder)
        #expect(output.status == 5, "\(output.stderr)")
        #expect(output.stderr.hasPrefix("slipstream: ") && output.stderr.contains(target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
