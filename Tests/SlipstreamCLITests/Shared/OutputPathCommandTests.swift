import Foundation
import Testing
import TestSupport

/// What an output path names is looked at before anything is written: a pipe or a device is
/// written in order (as curl does) or refused, never replaced by a file; the file played is
/// never an output; an existing file is replaced only with `--force`.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct OutputPathCommandTests {
    /// The kind of file at `path` (`S_IFIFO`, `S_IFREG` ...), or nil.
    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    @Test func aDownloadIntoAPipeIsWrittenInOrderAndThePipeStays() async throws {
        let served = try await TestNginx.makeFileOffPool("pipe-\(UInt32.random(in: 0...UInt32.max)).bin", size: 3 << 20)
        let folder = try TestFiles.makeTemporaryFolder()
        let pipe = folder + "/pipe"
        #expect(mkfifo(pipe, 0o644) == 0)
        // A reader of the pipe, as a shell's `cat pipe > copy` is.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat pipe > copy"]
        reader.currentDirectoryURL = URL(fileURLWithPath: folder)
        try reader.run()
        let url = try TestNginx.url(URL(fileURLWithPath: served).lastPathComponent)
        let output = try await CommandRunner.run(["get", url, "-o", "pipe", "--force", "-q"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let status = try await offPool {
            reader.waitUntilExit()
            return reader.terminationStatus
        }
        #expect(status == 0)
        #expect(Self.kind(pipe) == S_IFIFO)
        #expect(await TestFiles.equalOffPool(folder + "/copy", served))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["pipe", "copy"])
    }

    @Test func aDownloadToDevNullIsWrittenThereNotAsAFile() async throws {
        let served = try await TestNginx.makeFileOffPool("null-\(UInt32.random(in: 0...UInt32.max)).bin", size: 1 << 20)
        let output = try await CommandRunner.run(
            ["get", try TestNginx.url(URL(fileURLWithPath: served).lastPathComponent), "-o", "/dev/null", "-q"], in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        #expect(Self.kind("/dev/null") == S_IFCHR)
        #expect(!FileManager.default.fileExists(atPath: "/dev/null.part"))
    }

    @Test func anHLSDownloadIntoAPipeIsRefused() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        #expect(mkfifo(folder + "/pipe", 0o644) == 0)
        let output = try await CommandRunner.run(["get", "--hls", "http://127.0.0.1:1/x.m3u8", "-o", "pipe", "--force"], in: folder)
        #expect(output.status == 5, "\(output.stderr)")
        #expect(output.stderr.contains("pipe is a pipe (FIFO), not a file"), "\(output.stderr)")
        #expect(Self.kind(folder + "/pipe") == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["pipe"])
    }

    /// `--save`, `--output wav:` and `--record` naming the file played, by its name or another
    /// (a hard link), are refused even with `--force`, and the file is unchanged.
    @Test(arguments: [["--save", "SAME"], ["--output", "wav:SAME"], ["--record", "SAME"]])
    func theFilePlayedIsNeverAnOutput(words: [String]) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        try FileManager.default.copyItem(atPath: try AudioFixtures.path("mp3-cbr128.mp3"), toPath: folder + "/in.mp3")
        #expect(link(folder + "/in.mp3", folder + "/other-name.mp3") == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/in.mp3"))
        for name in ["in.mp3", "other-name.mp3", "./in.mp3"] {
            let arguments = words.map { $0.replacingOccurrences(of: "SAME", with: name) }
            let output = try await CommandRunner.run(
                ["play", "in.mp3", "--force", "-q"] + arguments + (words[0] == "--output" ? [] : ["--output", "null"]), in: folder)
            #expect(output.status == 2, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("is the file being played"), "\(output.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in.mp3")) == before)
    }

    /// An existing file is replaced by `--save`, `--output wav:` and `--record` only with
    /// `--force`, as `get` does.
    @Test(arguments: [["--save", "out.bin"], ["--output", "wav:out.bin"], ["--record", "out.bin"]])
    func anExistingFileIsReplacedOnlyWithForce(words: [String]) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let input = try AudioFixtures.path("mp3-cbr128.mp3")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder + "/out.bin"))
        let null = words[0] == "--output" ? [] : ["--output", "null"]
        let refused = try await CommandRunner.run(["play", input, "-q"] + words + null, in: folder)
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(refused.stderr.contains("out.bin exists; use --force to replace it"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: folder + "/out.bin", encoding: .utf8) == "keep me")
        let replaced = try await CommandRunner.run(["play", input, "-q", "--force"] + words + null, in: folder)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: folder + "/out.bin")[.size] as? Int ?? 0) > 1000)
    }
}
