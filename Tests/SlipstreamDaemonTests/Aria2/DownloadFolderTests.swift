#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

@testable import SlipstreamDaemon

@Suite struct DownloadFolderTests {
    @Test func aRequestsFolderStaysInside() throws {
        let base = try TestFiles.makeTemporaryFolder()
        let outside = try TestFiles.makeTemporaryFolder()
        #expect(symlink(outside, base + "/escape") == 0)
        #expect(mkdir(base + "/real", 0o755) == 0)
        let folder = try DownloadFolder(base)

        #expect(try folder.folder(for: nil) == folder.path)
        #expect(try folder.folder(for: "a/b") == folder.path + "/a/b")
        #expect(access(folder.path + "/a/b", F_OK) == 0)
        #expect(try folder.folder(for: folder.path + "/real") == folder.path + "/real")
        #expect(try folder.folder(for: "./real/") == folder.path + "/real")

        for bad in ["..", "a/../../x", "/etc", outside, "escape", "escape/deeper", folder.path + "/../x", "a\nb"] {
            #expect(throws: DownloadFolderRefusal.self, "\(bad)") { try folder.folder(for: bad) }
        }
        // Nothing was made outside.
        #expect(access(outside + "/deeper", F_OK) != 0)
    }

    @Test func outIsAFileName() throws {
        try DownloadFolder.check(out: "a.iso")
        for bad in ["", ".", "..", "a/b", "/etc/passwd", "a\u{0}b", String(repeating: "x", count: 256)] {
            #expect(throws: DownloadFolderRefusal.self, "\(bad)") { try DownloadFolder.check(out: bad) }
        }
    }

    @Test func aMissingFolderIsAClearError() {
        #expect(throws: RPCFailure.self) { try DownloadFolder("/nonexistent/slipstream-folder") }
    }
}
