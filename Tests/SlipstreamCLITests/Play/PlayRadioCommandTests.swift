import Foundation
import Testing
import TestSupport

/// `slipstream play` on an in-test radio station (ICY blocks, `icy-metaint`, titles): events as
/// JSON lines on standard output, and the recording into a folder or one file. The station's
/// stream is live: `--reconnect 0` lets it end with its response.
@Suite(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
struct PlayRadioCommandTests {
    static let interval = 16000
    static let titles: [String?] = [nil, "Band/Name - First Song", nil, nil, "Second", nil, "Band/Name - First Song", nil, "", nil]

    /// A station sending 12 s of MP3 (the 3-s fixture four times) with `titles`.
    static func station() throws -> (server: TestHTTPServer, audio: [UInt8]) {
        let piece = try AudioFixtures.bytes("mp3-cbr128-noxing.mp3")
        let audio = Array([[UInt8]](repeating: piece, count: 4).joined())
        let body = ICYStream.build(audio: audio, interval: interval, titles: titles)
        return (try TestHTTPServer { _ in ICYStream.response(body, interval: interval, name: "Test FM") }, audio)
    }

    /// Every line of `stdout` parsed as a JSON object.
    static func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test func jsonLinesTellEveryEventAndTheRecordingSplitsAtTitles() async throws {
        let (server, audio) = try Self.station()
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["play", server.url("/stream"), "--output", "null", "--reconnect", "0", "--json", "--record", "radio/"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        let events = try Self.events(output.stdout)
        #expect(events.allSatisfy { $0["event"] is String })
        func of(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

        let station = try #require(of("station").first)
        #expect(station["name"] as? String == "Test FM" && station["bitrate"] as? Int == 128)
        let format = try #require(of("format").first)
        #expect(format["codec"] as? String == "mp3" && format["sampleRate"] as? Int == 44100 && format["channels"] as? Int == 2)
        #expect(of("title").map { $0["title"] as? String } == ["Band/Name - First Song", "Second", "Band/Name - First Song", ""])
        #expect(of("title").first?["artist"] as? String == "Band/Name")
        let states = of("state").compactMap { $0["state"] as? String }
        #expect(states.contains("playing") && states.last == "done", "\(states)")
        #expect(of("buffering").first?["status"] as? String == "started")
        #expect(!of("progress").isEmpty)
        #expect(of("error").isEmpty)

        let names = ["Test FM.mp3", "Band-Name - First Song.mp3", "Second.mp3", "Band-Name - First Song (2).mp3", "Test FM (2).mp3"]
        let recording = of("recording")
        #expect(recording.filter { $0["status"] as? String == "started" }.map { $0["path"] as? String } == names.map { "radio/" + $0 })
        let finished = recording.filter { $0["status"] as? String == "finished" }
        #expect(finished.map { $0["path"] as? String } == names.map { "radio/" + $0 })
        #expect(finished.compactMap { $0["bytes"] as? Int }.reduce(0, +) == audio.count)
        #expect(finished.allSatisfy { $0["dropped"] as? Int == 0 })
        // The recording's last event comes before the final state.
        let lastRecording = try #require(events.lastIndex { $0["event"] as? String == "recording" })
        let done = try #require(events.lastIndex { $0["state"] as? String == "done" })
        #expect(lastRecording < done)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/radio").sorted() == names.sorted())
        // Messages go to standard error, one per file.
        #expect(output.stderr.split(separator: "\n").filter { $0.hasPrefix("recorded radio/") }.count == names.count, "\(output.stderr)")
    }

    @Test func recordsIntoOneFile() async throws {
        let (server, audio) = try Self.station()
        defer { server.stop() }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = try await CommandRunner.run(
            ["play", server.url("/stream"), "--output", "null", "--reconnect", "0", "--record", "radio.mp3"], in: folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("recorded radio.mp3: "), "\(output.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/radio.mp3")))
        // An ID3v2.3 tag (the station's name), then the audio without the ICY blocks.
        #expect(bytes.starts(with: Array("ID3".utf8) + [3, 0]))
        #expect(bytes.count > audio.count && bytes[(bytes.count - audio.count)...].elementsEqual(audio))
    }

    @Test func aRecordingPlaceThatCannotBeUsedFailsAtOnceWithStatus5() async throws {
        for target in ["/nonexistent-folder/radio/", "/nonexistent-folder/radio.mp3"] {
            let output = try await CommandRunner.run(["play", "http://127.0.0.1:9/x.mp3", "--record", target], in: NSTemporaryDirectory())
            #expect(output.status == 5, "\(output.stderr)")
            #expect(output.stderr.contains("/nonexistent-folder/radio"), "\(output.stderr)")
        }
    }
}
