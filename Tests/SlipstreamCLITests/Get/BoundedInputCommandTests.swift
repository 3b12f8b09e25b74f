import Foundation
import Testing
import TestSupport

/// Every reader of a list or a playlist stops at its bound with a clear error and the status of
/// what it is: never a process that grows until it dies, never another option's status.
@Suite struct BoundedInputCommandTests {
    /// An endless input file (`-i /dev/zero` grew until "failed to allocate 4429184960 bytes").
    @Test func anEndlessDownloadListIsRefusedAtItsBound() async throws {
        let output = try await CommandRunner.run(["get", "-i", "/dev/zero"], in: NSTemporaryDirectory())
        #expect(output.status == 2, "\(output.stderr)")
        #expect(output.stderr.contains("/dev/zero is larger than 64 MiB: not a download list"), "\(output.stderr)")
    }

    /// A playlist past the 8 MiB that `get --hls` reads is not audio it can download (6), not a
    /// file larger than `--max-filesize` (9, which was given).
    @Test(.enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"))
    func anHLSPlaylistPastItsBoundIsNotAFileTooLarge() async throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        while text.utf8.count <= 8 << 20 { text += "# a comment to make the playlist long, as a hostile server may\n" }
        let url = try PlaylistCommandTests.servedFolder(["huge.m3u8": text]) + "huge.m3u8"
        let folder = try TestFiles.makeTemporaryFolder()
        let output = try await CommandRunner.run(["get", "--hls", url, "-q"], in: folder)
        #expect(output.status == 6, "\(output.stderr)")
        #expect(output.stderr.contains("the HLS playlist is larger than 8 MiB"), "\(output.stderr)")
        #expect(!output.stderr.contains("max-filesize"), "\(output.stderr)")
    }
}
