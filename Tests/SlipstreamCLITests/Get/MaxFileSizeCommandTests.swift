import Foundation
import Testing
import TestSupport

/// `get --max-filesize` against nginx: a file of known size is refused before its body; one
/// sent without a length (gzip on the fly) is stopped once it passes the limit, and removed.
@Suite struct MaxFileSizeCommandTests {
    @Test func aKnownSizeIsRefusedBeforeTheBody() async throws {
        try TestNginx.makeFile("cli-max-3m.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let refused = try await CommandRunner.run(["get", "--max-filesize", "1M", try TestNginx.url("cli-max-3m.bin")], in: folder)
        #expect(refused.status == 9)
        #expect(refused.stderr.contains("the file is 3145728 bytes, more than the 1048576 allowed"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        let allowed = try await CommandRunner.run(["get", "-q", "--max-filesize", "3M", try TestNginx.url("cli-max-3m.bin")], in: folder)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test func aBodyWithoutALengthIsStoppedOnceItPassesTheLimitAndRemoved() async throws {
        try TestNginx.makeFile("cli-max-gzip-3m.bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestNginx.url("cli-max-gzip-3m.bin", location: "gzip")
        // Asked for gzip, nginx compresses as it sends: no length, no ranges.
        let gzip = ["-H", "Accept-Encoding: gzip"]
        let stopped = try await CommandRunner.run(["get", "--max-filesize", "1M"] + gzip + [url], in: folder)
        #expect(stopped.status == 9)
        #expect(stopped.stderr.contains("passed 1048576 bytes with no size announced"), "\(stopped.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        let allowed = try await CommandRunner.run(["get", "-q", "--max-filesize", "4M"] + gzip + [url], in: folder)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }
}
