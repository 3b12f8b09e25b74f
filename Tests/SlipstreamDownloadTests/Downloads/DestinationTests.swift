import Foundation
import Testing
import TestSupport
@testable import SlipstreamDownload

@Suite struct DestinationTests {
    @Test(
        arguments: [
            (nil, "http://h/a/b/file.iso?x=1", "file.iso"),
            ("report.pdf", "http://h/dl?id=3", "report.pdf"),
            ("../../etc/passwd", "http://h/x", "passwd"),
            ("..", "http://h/x.bin", "x.bin"),
            (".hidden", "http://h/x", "hidden"),
            ("a\\b\\c.txt", "http://h/x", "c.txt"),
            (nil, "http://h/", "index.html"),
            (nil, "http://h/my%20song.mp3", "my song.mp3"),
            (nil, "http://h/%2E%2E", "index.html"),
            (nil, "http://h", "index.html"),
            (nil, "http://h?q=/x.bin", "index.html"),
            (nil, "https://u:p@h:8080/a/%C3%A9t%C3%A9.ogg#t=3", "été.ogg"),
            (nil, "http://h/a%2Fb.txt", "b.txt"),
            (nil, "http://h/bad%2", "index.html"),
        ] as [(String?, String, String)])
    func namesAreSafe(disposition: String?, url: String, expected: String) {
        #expect(OutputName.choose(contentDisposition: disposition, url: url) == expected)
    }

    /// Plain names come through as they are; the others lose what is unsafe.
    @Test(
        arguments: [
            ("a b.txt", "a b.txt"),
            ("x~!@#$%^&*()=+[]{};:'\",<>?|`.iso", "x~!@#$%^&*()=+[]{};:'\",<>?|`.iso"),
            (String(repeating: "a", count: 255), String(repeating: "a", count: 255)),
            (String(repeating: "a", count: 256), nil),
            (" x", "x"),
            ("x ", "x"),
            ("..x", "x"),
            ("a\u{7F}b\tc", "abc"),
            ("d/e", "e"),
            ("f\\g", "g"),
            ("", nil),
            ("été.ogg", "été.ogg"),
        ] as [(String, String?)])
    func sanitizedNames(raw: String, expected: String?) {
        #expect(OutputName.sanitize(raw) == expected)
    }

    /// Only the accepted schemes, with a host (`http:///x` was retried as a network failure).
    @Test(
        arguments: [
            ("http://h/x", nil), ("HTTPS://H", nil), ("ftp://u:p@h:21/f", nil), ("http://[::1]:80/x", nil),
            ("sftp://h", nil), ("http:///x", "a URL without a host"), ("https://?q", "a URL without a host"),
            ("ftp://u@:21/f", "a URL without a host"), ("http://:80/x", "a URL without a host"),
            ("http://[]/x", "a URL without a host"), ("gopher://h/x", HTTPURL.refusal), ("h/x", HTTPURL.refusal),
        ] as [(String, String?)])
    func urlsNeedASchemeAndAHost(url: String, refusal: String?) {
        #expect(HTTPURL.refusal(of: url) == refusal)
    }

    /// `start` reads no disk on the caller's thread: a destination that can never work fails
    /// the download, with the facts, before any request (the server would count one).
    @Test func badDestinationsFailBeforeAnyRequest() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: folder + "/exists.bin", contents: Data([1])))
        try FileManager.default.createDirectory(atPath: folder + "/taken.bin.part", withIntermediateDirectories: false)
        let server = try TestHTTPServer { .file([1, 2, 3], for: $0) }
        defer { server.stop() }
        let downloader = Downloader()
        let cases: [(DownloadDestination, DownloadError.Code, String, String)] = [
            (.file(folder), .output, "is a folder", folder),
            (.file(folder + "/missing/x.bin"), .output, "does not exist", folder + "/missing/x.bin"),
            (.file(folder + "/exists.bin"), .exists, "already exists", folder + "/exists.bin"),
            (.folder(folder + "/missing"), .output, "does not exist", folder + "/missing"),
            // (Was taken for a failed write, with the advice to resume from it.)
            (.file(folder + "/taken.bin"), .output, "taken.bin.part is a folder", folder + "/taken.bin"),
        ]
        for (destination, code, message, path) in cases {
            let download = try downloader.start(server.url("/x.bin"), to: destination)
            await #expect {
                try await download.value
            } throws: { error in
                let error = error as? DownloadError
                return error?.code == code && error?.message.contains(message) == true && error?.path == path
                    && error?.resumableFile == nil
            }
        }
        #expect(server.requests.isEmpty)
        #expect(throws: DownloadError.self) { _ = try downloader.start("gopher://host/x", to: .folder(folder)) }
        #expect(throws: DownloadError.self) { _ = try downloader.start("not a url", to: .folder(folder)) }
        #expect(throws: DownloadError.self) { _ = try downloader.start("http:///x", to: .folder(folder)) }
        #expect(FileManager.default.contents(atPath: folder + "/exists.bin") == Data([1]))
        #expect(FileSystem.isFolder(folder + "/taken.bin.part"))
    }

    /// A name whose `.part` fits in 255 bytes but whose resume record's name would not: a
    /// clear error before anything is written (a 3 MiB `.part` was made and sized, then the
    /// first record failed, and the `.part` was left).
    @Test func aNameTooLongForTheResumeRecordsIsRefusedBeforeAnythingIsWritten() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = TestFiles.randomBytes(3 << 20, seed: 5)
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let path = folder + "/" + String(repeating: "n", count: 240)
        do {
            _ = try await Downloader().start(server.url("/x.bin"), to: .file(path)).value
            Issue.record("expected the download to fail")
        } catch {
            #expect(error.code == .output, "\(error)")
            #expect(error.message.contains("too long") && error.message.contains("261 bytes"), "\(error.message)")
            #expect(error.resumableFile == nil)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
