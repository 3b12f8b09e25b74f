import Foundation
import Testing
import TestSupport

/// `slipstream info` run as a user would, against nginx, local files and the fault server.
@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct InfoCommandTests {
    /// Runs `slipstream info ARGUMENTS --json` and decodes what it printed.
    private func json(_ arguments: [String]) async throws -> (output: CommandRunner.Output, report: [String: Any]) {
        let output = try await CommandRunner.run(["info", "--json"] + arguments, in: NSTemporaryDirectory())
        #expect(output.status == 0, "\(output.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        return (output, try #require(report))
    }

    /// The URL nginx serves fixture `name` at, copying it into nginx's folder first.
    private func served(_ name: String) throws -> String {
        let path = try TestNginx.filesFolder() + "/info-" + name
        if !FileManager.default.fileExists(atPath: path) {
            try Data(try AudioFixtures.bytes(name)).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        return try TestNginx.url("info-" + name)
    }

    @Test(arguments: [
        "mp3-vbr-v0.mp3", "mp3-cbr128-noxing.mp3", "mp3-id3v24-footer.mp3", "mp3-ape-lyrics3-id3v1.mp3",
        "mp3-mpeg25-8000.mp3", "mp2-192k.mp2", "aac-lc-128k.aac", "wav-s24-extensible.wav",
    ])
    func urlAndFileAgreeWithTheReference(name: String) async throws {
        let reference = try #require(AudioFixtures.references.first { $0.name == name })
        let size = try AudioFixtures.bytes(name).count
        let url = try served(name)
        let (_, overHTTP) = try await json([url])
        let file = AudioFixtures.directory!.appendingPathComponent(name).path
        let (_, local) = try await json([file])

        let audio = try #require(overHTTP["audio"] as? [String: Any])
        let localAudio = try #require(local["audio"] as? [String: Any])
        #expect(
            try JSONSerialization.data(withJSONObject: audio, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: localAudio, options: .sortedKeys))
        let format = try #require(audio["format"] as? [String: Any])
        #expect(format["sampleRate"] as? Int == reference.sampleRate)
        #expect(format["channels"] as? Int == reference.channels)
        // The decoders' sample count, exactly where the duration is counted or stated.
        let duration = try #require(audio["duration"] as? Double)
        let expected = Double(reference.samples) / Double(reference.sampleRate)
        let tolerance = audio["durationSource"] as? String == "estimate" ? expected * 0.02 : 0.001
        #expect(abs(duration - expected) <= tolerance, "\(duration) vs \(expected)")
        if reference.kind == "mpeg", audio["durationSource"] as? String != "estimate" {
            #expect(audio["trimmedFrameCount"] as? Int64 == reference.samples)
        }
        let tags = audio["tags"] as? [String: Any]
        #expect(tags?["title"] as? String == reference.title)

        let source = try #require(overHTTP["source"] as? [String: Any])
        #expect(source["url"] as? String == url)
        #expect(source["size"] as? Int == size)
        #expect(source["acceptsRanges"] as? Bool == true)
        #expect(source["contentType"] as? String == "application/octet-stream")
        let fileSource = try #require(local["source"] as? [String: Any])
        #expect(fileSource["file"] as? String == file)
        #expect(fileSource["acceptsRanges"] == nil)
    }

    @Test func textOutput() async throws {
        let url = try served("mp3-id3v24-footer.mp3")
        let output = try await CommandRunner.run(["info", url], in: NSTemporaryDirectory())
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "URL:          \(url)")
        #expect(lines.contains("Ranges:       yes"))
        #expect(lines.contains("Format:       MPEG-1 Layer III, 44100 Hz, stereo"))
        #expect(lines.contains { $0.hasPrefix("Duration:     0:03 (3.000 s, ") })
        #expect(lines.contains { $0.hasPrefix("Gapless:      encoder delay 576, padding ") })
        #expect(lines.contains("Title:        Tïtle ✓"))
    }

    /// A 10 MB picture in the ID3v2 tag is jumped over with a range request, not downloaded.
    @Test func aLargeTagIsSkippedNotRead() async throws {
        let content = try AudioFixtures.bytes("mp3-id3v23-picture.mp3")
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let (_, report) = try await json([server.url("/picture.mp3")])
        let audio = try #require(report["audio"] as? [String: Any])
        #expect((audio["tags"] as? [String: Any])?["title"] as? String == "Big Picture")
        #expect(audio["packetCount"] as? Int == 116)
        #expect(server.bodyBytesSent < 512 << 10, "sent \(server.bodyBytesSent) of \(content.count) bytes")
        #expect(content.count > 10 << 20)
        #expect(server.requests.allSatisfy { $0.range != nil })
    }

    /// A long stream without a Xing header: the head, then the tail for tags, and an estimate.
    @Test func aLongFileIsReadAtItsEndsOnly() async throws {
        let content = Array(repeating: try AudioFixtures.bytes("mp3-cbr128-noxing.mp3"), count: 400).flatMap { $0 }
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let (_, report) = try await json([server.url("/long.mp3")])
        let audio = try #require(report["audio"] as? [String: Any])
        #expect(audio["durationSource"] as? String == "estimate")
        let single = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128-noxing.mp3" }?.duration)
        let duration = try #require(audio["duration"] as? Double)
        #expect(abs(duration - 400 * single) < 400 * single * 0.01)
        #expect(server.bodyBytesSent < 300 << 10, "sent \(server.bodyBytesSent) of \(content.count) bytes")
        // The last request is for the tail.
        #expect(server.requests.last?.range?.end == Int64(content.count - 1))
        let source = try #require(report["source"] as? [String: Any])
        #expect(source["bytesRead"] as? Int == server.bodyBytesSent)
    }

    /// `--exact` reads every byte and counts every packet.
    @Test func exactCountsEveryPacket() async throws {
        let content = Array(repeating: try AudioFixtures.bytes("mp3-cbr128-noxing.mp3"), count: 100).flatMap { $0 }
        let server = try TestHTTPServer { .file(content, for: $0) }
        defer { server.stop() }
        let (_, report) = try await json(["--exact", server.url("/long.mp3")])
        let audio = try #require(report["audio"] as? [String: Any])
        let single = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128-noxing.mp3" })
        #expect(audio["durationSource"] as? String == "counted")
        #expect(audio["packetCount"] as? Int == 100 * (single.packets ?? 0))
        #expect(server.bodyBytesSent == content.count)
    }

    /// A server that answers every range with the whole file: one bounded read from the start.
    @Test func aServerWithoutRangesIsReadWithinABound() async throws {
        let content = Array(repeating: try AudioFixtures.bytes("mp3-cbr128-noxing.mp3"), count: 800).flatMap { $0 }
        let server = try TestHTTPServer { _ in TestHTTPServer.Response(status: 200, body: content) }
        defer { server.stop() }
        let (_, report) = try await json([server.url("/long.mp3")])
        let audio = try #require(report["audio"] as? [String: Any])
        #expect(audio["durationSource"] as? String == "estimate")
        let source = try #require(report["source"] as? [String: Any])
        #expect(source["acceptsRanges"] as? Bool == false)
        #expect(source["size"] as? Int == content.count)
        #expect(source["bytesRead"] as? Int == 256 << 10)
        #expect(server.requests.count == 1)
        // What the server wrote before the client hung up: the read plus the sockets' buffers.
        #expect(server.bodyBytesSent < content.count / 2)
    }

    @Test func notFoundExitsWith4() async throws {
        let url = try TestNginx.url("info-missing.mp3")
        let output = try await CommandRunner.run(["info", url], in: NSTemporaryDirectory())
        #expect(output.status == 4)
        #expect(output.stderr == "slipstream: \(url): the server answered HTTP 404 Not Found\n")
        #expect(output.stdout.isEmpty)
    }

    @Test func aRangeFromTheWrongPlaceExitsWith4() async throws {
        let content = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(
                status: 206, headers: [("Content-Range", "bytes 100-199/\(content.count)")],
                body: Array(content[100..<200]))
        }
        defer { server.stop() }
        let output = try await CommandRunner.run(["info", server.url("/a.mp3")], in: NSTemporaryDirectory())
        #expect(output.status == 4)
        #expect(output.stderr.contains("asked for bytes 0-262143 but the server sent Content-Range bytes 100-199/"))
    }

    @Test func anHTMLPageIsNotAudio() async throws {
        let path = try TestNginx.filesFolder() + "/info-page.html"
        try Data("<!DOCTYPE html><html><body>Not here</body></html>\n".utf8).write(to: URL(fileURLWithPath: path))
        let url = try TestNginx.url("info-page.html")
        let output = try await CommandRunner.run(["info", url], in: NSTemporaryDirectory())
        #expect(output.status == 6)
        let formats = "MP3/MPEG audio, AAC (ADTS or MP4), FLAC, Ogg, WAV, AIFF or CAF"
        #expect(output.stderr.hasPrefix("slipstream: \(url): no \(formats) found; it starts with HTML or XML: "))
        #expect(output.stderr.contains("served as text/html"))
        #expect(output.stderr.split(separator: "\n").count == 1)

        let local = try await CommandRunner.run(["info", path], in: NSTemporaryDirectory())
        #expect(local.status == 6)
        #expect(local.stderr.hasPrefix("slipstream: \(path): no MP3/MPEG audio"))
    }

    @Test func unreadableFilesExitWith5() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try await CommandRunner.run(["info", "missing.mp3"], in: folder)
        #expect(missing.status == 5)
        #expect(missing.stderr == "slipstream: missing.mp3: No such file or directory\n")
        let directory = try await CommandRunner.run(["info", folder], in: folder)
        #expect(directory.status == 5)
        #expect(directory.stderr == "slipstream: \(folder): is a folder, not a file\n")
    }

    @Test func usageAndNetworkErrors() async throws {
        let usage = try await CommandRunner.run(["info"], in: NSTemporaryDirectory())
        #expect(usage.status == 2)
        #expect(usage.stderr == "slipstream: info needs a URL or a file\nUsage: slipstream info [options] URL|FILE\n")
        let scheme = try await CommandRunner.run(["info", "ftp://127.0.0.1/a.mp3"], in: NSTemporaryDirectory())
        #expect(scheme.status == 2)
        let refused = try await CommandRunner.run(["info", "http://127.0.0.1:1/a.mp3"], in: NSTemporaryDirectory())
        #expect(refused.status == 3)
        #expect(refused.stderr.hasPrefix("slipstream: http://127.0.0.1:1/a.mp3: "))
        let help = try await CommandRunner.run(["info", "--help"], in: NSTemporaryDirectory())
        #expect(help.status == 0 && help.stdout.contains("6 not audio"))
        // libcurl takes `http:///x` for the host `x` (play reconnected to it for 3.5 s): a URL
        // without a host is a usage error at once, for play and info as for get.
        for command in [["info"], ["play", "--output", "null"]] {
            let noHost = try await CommandRunner.run(command + ["http:///x.mp3"], in: NSTemporaryDirectory())
            #expect(noHost.status == 2, "\(command): \(noHost.stderr)")
            #expect(noHost.stderr.contains("no host, or a malformed one") && !noHost.stderr.contains("reconnecting"), "\(noHost.stderr)")
        }
    }
}
