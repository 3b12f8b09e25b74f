import Foundation
import SlipstreamCore
import Synchronization
import Testing
import TestSupport

/// The command line against a server that answers at random (statuses, headers that lie or
/// attack, bodies of audio, playlists or noise, cut short or stalled) with random option values,
/// over many seeded runs: every run ends by itself with a documented exit status, never a signal,
/// writes nothing outside its folder, and shows neither the URL's password nor a control
/// character. A failing seed is named, and replays the same answers and options. One seed at a
/// time, so that its runs do not crowd the other suites' servers.
@Suite(.serialized) struct FaultServerPropertyTests {
    static let password = "S3cretPW"
    /// The password of a URL a playlist from the server lists (a saved copy of the playlist
    /// holds it, as the server sent it; nothing shown may).
    static let entryPassword = "EntryPW"
    /// The statuses the README documents.
    static let documented: Set<Int32> = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]

    /// The server's answers for one seed: each request draws its own from the seed and its
    /// number, so a run replays the same answers in the same order.
    final class Answers: Sendable {
        let seed: UInt64
        let audio: [UInt8]
        let count = Mutex(0)

        init(seed: UInt64, audio: [UInt8]) {
            self.seed = seed
            self.audio = audio
        }

        func answer(_ request: TestHTTPServer.Request, port: Int) -> TestHTTPServer.Response {
            let number = count.withLock { count in
                count += 1
                return count
            }
            var random = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(number))
            func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
            func maybe() -> Bool { random.next() % 2 == 0 }

            let bodies: [[UInt8]] = [
                Array(audio.prefix(Int(random.next() % UInt64(audio.count)))), audio,
                TestFiles.fastRandomBytes(Int(random.next() % 65_536), seed: random.next()),
                Array("#EXTM3U\n#EXT-X-TARGETDURATION:\(pick(["2", "-1", "1e19"]))\n#EXTINF:\(pick(["2", "nan", "-3"])),\na.ts\n".utf8),
                Array("[playlist]\nFile1=http://bob:\(FaultServerPropertyTests.entryPassword)@127.0.0.1:\(port)/x\u{1B}[2J\n".utf8),
                Array("<html>\u{1B}]0;owned\u{07}</html>".utf8), [],
            ]
            let body = pick(bodies)
            var headers: [(String, String)] = []
            if maybe() { headers.append(("Accept-Ranges", pick(["bytes", "none"]))) }
            if maybe() {
                headers.append(
                    ("Content-Type", pick(["audio/mpeg", "text/html", "audio/x-mpegurl", "application/vnd.apple.mpegurl", "x\u{1B}[2J"])))
            }
            if maybe() { headers.append(("ETag", pick(["\"v1\"", "\"\(random.next())\"", "W/\"weak\""]))) }
            if maybe() {
                headers.append(("Last-Modified", pick(["Sun, 06 Dec 2026 10:00:00 GMT", "garbage", "Sun, 99 Foo 99999 99:99:99 GMT"])))
            }
            if maybe() {
                headers.append(
                    (
                        "Content-Disposition",
                        "attachment; filename=\"\(pick(["../../escape.bin", "/tmp/abs.bin", "a\u{1B}[2J.mp3", "..", "ok.bin"]))\""
                    ))
            }
            if maybe() { headers.append(("Retry-After", pick(["0", "1", "99999999999999999999", "-5", "Sun, 06 Dec 2026 10:00:00 GMT"]))) }
            if maybe() { headers.append(("icy-metaint", pick(["16", "0", "-1", "99999999999", "8192,8192"]))) }
            if maybe() { headers.append(("icy-name", "Station \u{1B}]0;owned\u{07}")) }
            let status = pick([200, 200, 206, 206, 301, 404, 416, 500, 503, 204])
            if status == 301 || status == 302 {
                headers.append(("Location", pick(["/again", "http://127.0.0.1:1/dead", "file:///etc/passwd", "ftp://127.0.0.1:1/x"])))
            }
            if status == 206 {
                let start = request.range?.start ?? 0
                let end = pick([start + Int64(body.count) - 1, start + 10, Int64.max - 1, 0])
                headers.append(
                    (
                        "Content-Range",
                        pick(["bytes \(start)-\(end)/\(pick(["*", "\(body.count)", "99999999999999999999"]))", "bytes */0", "garbage"])
                    ))
            }
            var response = TestHTTPServer.Response(status: status, headers: headers, body: status == 204 ? [] : body)
            switch random.next() % 6 {
            case 0: response.closeAfter = Int(random.next() % UInt64(max(body.count, 1)))
            case 1: response.chunked = true
            case 2: response.untilClose = true
            default: break
            }
            return response
        }
    }

    /// The options a run may draw, values that are valid and values that are not; the files
    /// they name are in the run's folder (a name the server gives must keep them there).
    static func words(_ random: inout SplitMix64, url: String) -> [String] {
        func pick(_ choices: [String]) -> String { choices[Int(random.next() % UInt64(choices.count))] }
        switch random.next() % 3 {
        case 0:
            var words = ["get", url, "--retries", pick(["0", "1"]), "--stall-timeout", "2", "--connect-timeout", "2"]
            words += [pick(["-o", "-d"]), pick(["out.bin", ".", "sub/out.bin", "sub/", "/dev/null"])]
            if random.next() % 2 == 0 { words += ["-n", pick(["1", "2", "8", "64", "0", "1e19"])] }
            if random.next() % 3 == 0 { words += ["--max-filesize", pick(["1K", "10M", "0x10", "-1"])] }
            if random.next() % 3 == 0 { words += [pick(["--force", "--no-continue", "--trust-size", "--remote-time", "--hls"])] }
            return words
        case 1:
            var words = ["play", url, "--output", pick(["null", "wav:out.wav", "wav:sub/out.wav"]), "--reconnect", "0"]
            if random.next() % 2 == 0 { words += ["--start", pick(["0", "5", "1000000000", "0x10", "nan"])] }
            if random.next() % 3 == 0 { words += ["--save", pick(["saved.bin", "sub/saved.bin"])] }
            if random.next() % 3 == 0 { words += ["--json"] }
            return words
        default:
            var words = ["info", url]
            if random.next() % 2 == 0 { words += [pick(["--json", "--exact"])] }
            return words
        }
    }

    @Test(
        .enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"),
        arguments: 0..<64 as Range<UInt64>)
    func aRandomServerAndRandomOptionsEndCleanly(seed: UInt64) async throws {
        let answers = Answers(seed: seed, audio: try AudioFixtures.bytes("mp3-cbr128.mp3"))
        let port = Mutex(0)
        let server = try TestHTTPServer { request in answers.answer(request, port: port.withLock { $0 }) }
        port.withLock { $0 = server.port }
        defer { server.stop() }
        var random = SplitMix64(seed: seed)
        let url = server.url("/file.mp3").replacingOccurrences(of: "http://", with: "http://alice:\(Self.password)@")
        let words = Self.words(&random, url: url)
        let parent = try TestFiles.makeTemporaryFolder()
        let folder = parent + "/run"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        let running = try CommandRunner.start(words, in: folder)
        // A run that does not end by itself is a failure: ended after a minute, and said.
        let watchdog = Task.detached {
            try await Task.sleep(for: .seconds(60))
            running.kill(SIGKILL)
        }
        let output = await running.wait()
        watchdog.cancel()
        let shown = output.stdout + output.stderr
        #expect(!output.signaled, "seed \(seed): \(words) ended by signal \(output.status): \(output.stderr)")
        #expect(
            output.signaled || Self.documented.contains(output.status), "seed \(seed): \(words) exit \(output.status): \(output.stderr)")
        #expect(!shown.contains(Self.password) && !shown.contains(Self.entryPassword), "seed \(seed): \(words): \(shown)")
        #expect(!shown.contains("\u{1B}") && !shown.contains("\u{07}"), "seed \(seed): \(words): \(shown.debugDescription)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["run"], "seed \(seed): \(words)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/abs.bin"), "seed \(seed): \(words)")
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
            #expect(data.range(of: Data(Self.password.utf8)) == nil, "seed \(seed): \(words): \(name) holds the password")
        }
    }
}
