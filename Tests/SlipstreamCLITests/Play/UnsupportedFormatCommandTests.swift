import Foundation
import Testing
import TestSupport

/// `slipstream play` and `info` refuse a container they cannot play yet by name, with exit
/// status 6, as soon as its first bytes identify it: real files made by ffmpeg served by nginx,
/// and a stream from the fault server that sends its first bytes slowly and then nothing more,
/// never ending (before, such a stream was refused only after 256 KiB).
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct UnsupportedFormatCommandTests {
    static let files = [
        ("unsupported-vorbis.mka", "Matroska/WebM"), ("unsupported-opus.webm", "Matroska/WebM"),
    ]

    /// The two commands, as run on `url`.
    static func commands(_ url: String) -> [[String]] {
        [["play", url, "--output", "null"], ["info", url]]
    }

    @Test(arguments: files)
    func refusedByNameWithExitStatus6(_ name: String, _ format: String) async throws {
        for arguments in Self.commands(try AudioFixtures.served(name)) {
            let output = try await CommandRunner.run(arguments, in: NSTemporaryDirectory())
            #expect(output.status == 6, "\(arguments[0]): \(output.stderr)")
            #expect(output.stderr.contains("\(format) cannot be played yet"), "\(arguments[0]): \(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(arguments[0]): \(output.stderr)")
        }
    }

    /// The server sends the file's first KiB at 1 KB/s in 50-byte pieces, chunked (no length,
    /// as a live stream), then holds the connection open without another byte: a command that
    /// waited for more would never end (a watchdog kills it after a minute, and the test fails).
    @Test(arguments: ["unsupported-vorbis.mka", "unsupported-opus.webm"])
    func aNeverEndingStreamIsRefusedAfterItsFirstBytes(_ name: String) async throws {
        let bytes = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "application/octet-stream")], body: bytes)
            response.chunked = true
            response.bytesPerSecond = 1000
            response.stallAfter = 1024
            return response
        }
        defer { server.stop() }
        let format = try #require(Self.files.first { $0.0 == name }?.1)
        for arguments in Self.commands(server.url("/live")) {
            let folder = try TestFiles.makeTemporaryFolder()
            let running = try CommandRunner.start(arguments, in: folder)
            running.kill(SIGKILL, whenFileExists: folder, afterMilliseconds: 60_000, timeoutSeconds: 70)
            let output = await running.wait()
            #expect(output.status == 6, "\(arguments[0]): \(output.stderr)")
            #expect(output.stderr.contains("\(format) cannot be played yet"), "\(arguments[0]): \(output.stderr)")
        }
    }
}
