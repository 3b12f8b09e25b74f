import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// `AudioInfo.read(from:)`, the library's "describe an audio URL with few reads": what it reads
/// and reports, from files and servers (the command line's tests check what it prints).
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct AudioInfoTests {
    /// A file with a 10 MiB picture in its ID3v2 tag: its head, then the audio after the picture
    /// (jumped over, not read) to the end; the tag's title.
    @Test func aFileIsReadAtItsEndsAndAroundItsTags() async throws {
        let name = "mp3-id3v23-picture.mp3"
        let path = try AudioFixtures.path(name)
        let size = try AudioFixtures.bytes(name).count
        let info = try await AudioInfo.read(from: path)
        #expect(info.source.file == path && info.source.url == nil)
        #expect(info.source.size == Int64(size))
        #expect(info.source.acceptsRanges == nil)
        #expect(info.source.requests == 2)
        #expect(info.source.bytesRead < 1 << 20 && size > 10 << 20)
        #expect(info.audio.tags.title == "Big Picture")
        #expect(info.audio.format.codec == .mp3)
    }

    /// A file cut short of what its Xing or WAV header counts (a download that stopped) is as
    /// long as the audio it holds, not as its header says (a 30 % cut said the whole length):
    /// two minutes made here, so that info reads its head and tail only.
    @Test(arguments: ["mp3", "wav"])
    func aFileCutShortIsAsLongAsItsAudio(kind: String) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let wav = folder + "/whole.wav", whole = folder + "/whole.\(kind)"
        try await ExternalProgram.run(["sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "120", "pinknoise"])
        if kind == "mp3" { try await ExternalProgram.run(["lame", "--quiet", "-V", "2", wav, whole]) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder + "/cut.\(kind)"
        try bytes.prefix(bytes.count * 3 / 10).write(to: URL(fileURLWithPath: cut))
        let full = try #require(try await AudioInfo.read(from: whole).audio.duration)
        let info = try await AudioInfo.read(from: cut)
        let duration = try #require(info.audio.duration)
        #expect(abs(full - 120) < 0.1)
        #expect(abs(duration - 36) < 2, "\(duration) s of \(full) s")
        #expect(info.audio.durationSource == .estimate)
        #expect(info.source.bytesRead < bytes.count / 5)
    }

    @Test func aURLIsReadByRangesAndSaysSo() async throws {
        let name = "mp3-vbr-v0.mp3"
        let url = try AudioFixtures.served(name)
        let info = try await AudioInfo.read(from: url)
        let reference = try #require(AudioFixtures.references.first { $0.name == name })
        #expect(info.source.url == url)
        #expect(info.source.acceptsRanges == true)
        #expect(info.audio.format.sampleRate == reference.sampleRate)
        #expect(info.audio.trimmedFrameCount == reference.samples)
        // The whole file is smaller than one read: read once, to the end.
        #expect(info.source.requests == 1)
        #expect(info.source.bytesRead == Int64(try AudioFixtures.bytes(name).count))
    }

    @Test func readingEveryByteCountsEveryPacket() async throws {
        var options = AudioInfo.Options()
        options.readsWholeStream = true
        let info = try await AudioInfo.read(from: try AudioFixtures.path("mp3-cbr128-noxing.mp3"), options: options)
        let reference = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128-noxing.mp3" })
        #expect(info.audio.durationSource == .counted)
        #expect(info.audio.packetCount == Int64(reference.packets ?? 0))
    }

    @Test func failuresCarryTheirFacts() async throws {
        let missing = try TestNginx.url("info-no-such.mp3")
        do {
            _ = try await AudioInfo.read(from: missing)
            Issue.record("a missing URL was described")
        } catch {
            #expect(error.code == .httpStatus && error.status == 404 && error.url == missing)
            #expect(error.message == "\(missing): the server answered HTTP 404 Not Found")
        }
        do {
            _ = try await AudioInfo.read(from: "/no/such/file.mp3")
            Issue.record("a missing file was described")
        } catch {
            #expect(error.code == .file && error.path == "/no/such/file.mp3")
        }
        do {
            _ = try await AudioInfo.read(from: "ftp://127.0.0.1/a.mp3")
            Issue.record("an FTP URL was described")
        } catch {
            #expect(error.code == .invalidURL)
        }
        let page = try TestFiles.makeTemporaryFolder() + "/page.html"
        try Data("<html><body>hello</body></html>".utf8).write(to: URL(fileURLWithPath: page))
        do {
            _ = try await AudioInfo.read(from: page)
            Issue.record("HTML was described as audio")
        } catch {
            #expect(error.code == .notAudio)
            #expect((error.underlying as? AudioParserError)?.code == .unrecognisedFormat)
        }
    }

    /// Cancelling the reading task cancels the read, whether it comes before the request or
    /// while the server holds its answer (here from the server's own thread, once it has it).
    @Test(arguments: [false, true])
    func cancellingTheTaskCancelsTheRead(whileHeld: Bool) async throws {
        let content = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let gate = Gate()
        let reading = Mutex<Task<AudioInfo, any Error>?>(nil)
        let server = try TestHTTPServer { request in
            if whileHeld { reading.withLock { $0 }?.cancel() }
            var response = TestHTTPServer.Response.file(content, for: request)
            response.holdAfter = 0
            response.gate = gate
            return response
        }
        defer {
            gate.open()
            server.stop()
        }
        let url = server.url("/held.mp3")
        let task = Task { try await AudioInfo.read(from: url) }
        reading.withLock { $0 = task }
        // Not while held, or the request came before the task was at hand: cancel from here.
        if !whileHeld || !server.requests.isEmpty { task.cancel() }
        let result = await task.result
        #expect((result.failure as? AudioInfoError)?.code == .cancelled, "\(result)")
    }

    @Test(
        arguments: [
            ("http://h/music/song.mp3?token=1#t", "mp3"), ("/tmp/a.b/track.AAC", "AAC"), ("http://h/stream", nil),
            ("http://h/dir.d/", nil), (".hidden", nil), ("x.", nil),
        ] as [(String, String?)])
    func fileExtensions(name: String, expected: String?) {
        #expect(AudioLocation.fileExtension(of: name) == expected)
    }
}
