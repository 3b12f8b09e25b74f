import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

@Suite struct ChecksumTests {
    static let abc: [(String, String)] = [
        ("sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("sha1", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("md5", "900150983cd24fb0d6963f7d28e17f72"),
    ]

    @Test(arguments: [
        "sha256=abc", "sha512=00", "md5=900150983cd24fb0d6963f7d28e17f7", "md5=900150983cd24fb0d6963f7d28e17f7g",
        "sha1", "=00", "",
    ])
    func badSpecificationsAreRefused(text: String) {
        #expect { try Checksum(parsing: text) } throws: { ($0 as? DownloadError)?.code == .invalidChecksum }
    }

    @Test(arguments: [
        "abc", "a9993e364706816aba3e25717850c26c9cd0d89", "a9993e364706816aba3e25717850c26c9cd0d89dd",
        "a9993e364706816aba3e25717850c26c9cd0d89z", "",
    ])
    func aDigestWithATypoIsRefused(hex: String) {
        #expect { try Checksum(.sha1, hex: hex) } throws: { ($0 as? DownloadError)?.code == .invalidChecksum }
    }

    @Test func parsingKeepsTheDigest() throws {
        let checksum = try Checksum(parsing: "SHA1=A9993E364706816ABA3E25717850C26C9CD0D89D")
        #expect(checksum.algorithm == .sha1)
        #expect(checksum.description == "sha1=a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(try Checksum(.sha1, hex: "A9993E364706816ABA3E25717850C26C9CD0D89D") == checksum)
    }

    /// The known digests of "abc" (FIPS 180 and RFC 1321 test vectors), through a real download.
    @Test(arguments: abc)
    func aMatchingDownloadIsRenamed(algorithm: String, hex: String) async throws {
        let server = try TestHTTPServer { .file(Array("abc".utf8), for: $0) }
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.checksum = try Checksum(parsing: "\(algorithm)=\(hex)")
        let result = try await Downloader(configuration: configuration).start(server.url("/abc"), to: .folder(folder)).value
        #expect(result.path == folder + "/abc")
    }

    @Test func aMismatchFailsAndTheFileStaysPart() async throws {
        let source = try TestNginx.makeFile("checksum-2m.bin", size: 2 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        var configuration = DownloadConfiguration()
        configuration.checksum = try Checksum(.sha256, hex: String(repeating: "0", count: 64))
        let download = try Downloader(configuration: configuration)
            .start(try TestNginx.url("checksum-2m.bin"), to: .folder(folder))
        do {
            _ = try await download.value
            Issue.record("expected a checksum mismatch")
        } catch {
            #expect(error.code == .checksum)
            #expect(error.message.contains("not 0000"))
            #expect(error.message.contains("checksum-2m.bin.part"))
        }
        // The bytes stay for inspection; nothing claims to be the file; no resume record.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["checksum-2m.bin.part"])
        let intact = TestFiles.equal(folder + "/checksum-2m.bin.part", source)
        #expect(intact)
    }
}
