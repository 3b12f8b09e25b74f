import Foundation
import Testing
import TestSupport

/// `get -o -` through a real pipe, as a shell runs it: the bytes exact on standard output from
/// several connections (a file twice the 32 MiB reorder buffer; the library's test has one 24
/// times its), from a server
/// without ranges, and a reader that closes early (exit 141, no message, no crash).
@Suite struct StdoutCommandTests {
    /// Runs `script` with bash (pipefail on) in a folder of its own, `$S` being the slipstream
    /// binary; its status and what it printed (standard output and standard error together).
    static func shell(_ script: String) async throws -> (status: Int32, text: String) {
        let binary = CommandRunner.binary
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try await ExternalProgram.output(["bash", "-c", "set -o pipefail; S=\"$0\"; cd \"$1\"; " + script, binary, folder])
    }

    @Test func aSegmentedDownloadIsExactThroughAPipe() async throws {
        let source = try await TestNginx.makeFileOffPool("stdout-64m.bin", size: 64 << 20)
        let url = try TestNginx.url("stdout-64m.bin", location: "rate", query: "rate=24m")
        let run = try await Self.shell(
            "\"$S\" get -n 4 '\(url)' -o - 2>err.txt | cmp - '\(source)' && grep -c 'wrote standard output: 64.0 MiB' err.txt")
        #expect(run.status == 0, "\(run.text)")
        #expect(run.text.hasSuffix("1\n"), "\(run.text)")
    }

    @Test func aServerWithoutRangesStreamsThroughAPipe() async throws {
        let source = try await TestNginx.makeFileOffPool("stdout-gzip-3m.bin", size: 3 << 20)
        // Asked for gzip, nginx compresses as it sends: no length, no ranges.
        let url = try TestNginx.url("stdout-gzip-3m.bin", location: "gzip")
        let run = try await Self.shell("\"$S\" get -q -H 'Accept-Encoding: gzip' '\(url)' -o - | gzip -d | cmp - '\(source)'")
        #expect(run.status == 0, "\(run.text)")
    }

    @Test func aReaderThatClosesEarlyEndsItQuietlyWith141() async throws {
        try await TestNginx.makeFileOffPool("stdout-64m.bin", size: 64 << 20)
        let url = try TestNginx.url("stdout-64m.bin", location: "rate", query: "rate=8m")
        let run = try await Self.shell(
            "\"$S\" get '\(url)' -o - 2>err.txt | head -c 100 | wc -c; echo \"status ${PIPESTATUS[0]}\"; cat err.txt")
        #expect(run.text == "100\nstatus 141\n", "\(run.text)")
    }

    @Test(arguments: [
        (["--checksum", "sha256=" + String(repeating: "0", count: 64)], "--checksum checks a file"),
        (["-N"], "-N compares a file already there"),
    ])
    func whatNeedsAFileIsRefused(extra: [String], message: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try await CommandRunner.run(["get", "http://127.0.0.1:1/x", "-o", "-"] + extra, in: folder)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }
}
