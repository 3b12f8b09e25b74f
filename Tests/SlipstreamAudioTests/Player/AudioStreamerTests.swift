import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The whole pipeline — HTTP engine, parser, packet queue, decoder, output — against the real
/// nginx and the in-test server, compared sample for sample with reference decoders.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct AudioStreamerTests {
    static let mp3Fixtures = [
        "mp3-cbr128.mp3", "mp3-vbr-v0.mp3", "mp3-mpeg2-22050.mp3", "mp3-mono64.mp3",
        "mp3-cbr128-noxing.mp3", "mp3-id3v23-picture.mp3", "mp3-mpeg25-8000.mp3",
    ]

    static func temporaryWAV() throws -> String { try TestFiles.makeTemporaryFolder() + "/out.wav" }

    @Test(arguments: mp3Fixtures)
    func playsAnMP3FromNginxExactlyAsMpg123DecodesIt(_ name: String) async throws {
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(try PlayerFiles.served(name)) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done, "\(run.events)")
        #expect(run.events.contains(.bufferingStarted) && run.events.contains(.bufferingEnded))
        let played = try ReferenceDecoder.wavData(wav)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(played.count == reference.count)
        #expect(played.elementsEqual(reference))
    }

    @Test func playsALocalFile() async throws {
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(try PlayerFiles.fixture("mp3-vbr-v0.mp3")) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture("mp3-vbr-v0.mp3"))
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(reference))
    }

    @Test func playsAWAVFileAsSoxReadsIt() async throws {
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(try PlayerFiles.served("wav-s16.wav")) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.sox(PlayerFiles.fixture("wav-s16.wav"))
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(reference))
    }

    /// ADTS AAC through libfaad2: the player's output is the straight decode of the file (the
    /// decoder itself is checked against ffmpeg in its own tests).
    @Test(arguments: ["aac-lc-128k.aac", "aac-lc-22050-mono.aac"])
    func playsADTSAsTheDecoderDecodesTheWholeFile(_ name: String) async throws {
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(try PlayerFiles.served(name)) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done, "\(run.events)")
        var straight: [UInt8] = []
        let bytes = try AudioFixtures.bytes(name)
        _ = try bytes.withUnsafeBytes { try StreamDecoding.decode($0) { straight += $0.bytes } }
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(straight))
    }

    @Test func reportsPropertiesAndEndsAtTheWholeDuration() async throws {
        let player = AudioStreamer(url: try PlayerFiles.served("mp3-cbr128.mp3"), configuration: .silent)
        let run = try await PlayerRun.collect(player)
        let properties = run.events.compactMap { if case .properties(let p) = $0 { p } else { nil } }.last
        #expect(properties?.format?.codec == .mp3)
        let reference = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128.mp3" })
        let progress = player.progress
        #expect(abs(progress.position - Double(reference.samples) / Double(reference.sampleRate)) < 1e-6)
        #expect(progress.bitRate == 128_000)
        #expect(player.state == .done)
    }

    // MARK: - Seeking

    /// Plays `url` paused until `ready` holds, seeks to `time`, plays to the end; returns the
    /// audio written after the seek and the run.
    func seekWhilePaused(
        _ url: String, to time: Double, configure: (inout AudioStreamerConfiguration) -> Void = { _ in },
        ready: @escaping (AudioStreamer) -> Bool
    ) async throws -> (after: [UInt8], run: PlayerRun, player: AudioStreamer) {
        let recording = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration()
        configuration.output = { recording }
        configure(&configuration)
        let player = AudioStreamer(url: url, configuration: configuration)
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            player.pause()
            try await PlayerRun.wait { ready(player) }
            try player.seek(to: time)
            player.play()
        }
        return (recording.segments.last ?? [], run, player)
    }

    @Test func aSeekInsideTheBufferLandsOnTheExactSampleWithoutTheNetwork() async throws {
        let file = try await PlayerFiles.long(30, ["-V", "2"])
        let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let server = try TestHTTPServer { request in .file(content, for: request) }
        defer { server.stop() }
        let (after, run, _) = try await seekWhilePaused(server.url("/vbr.mp3"), to: 20, configure: { $0.bufferLimit = .unlimited }) {
            $0.progress.bytesReceived == Int64(content.count)
        }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.mpg123(file)
        let target = 20 * 44100
        #expect(after.count == reference.count - target * 4)
        #expect(after[...].elementsEqual(reference[(target * 4)...]))
        #expect(server.requests.count == 1)
    }

    @Test func aSeekPastTheBufferInACBRFileAsksForARangeAndIsExact() async throws {
        let file = try await PlayerFiles.long(30, ["-b", "128"])
        let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let server = try TestHTTPServer { request in .file(content, for: request) }
        defer { server.stop() }
        let (after, run, _) = try await seekWhilePaused(server.url("/cbr.mp3"), to: 21.5, configure: { $0.bufferLimit = .bytes(64 * 1024) })
        {
            $0.progress.bytesReceived >= 40 * 1024
        }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.mpg123(file)
        let target = Int(21.5 * 44100)
        #expect(after[...].elementsEqual(reference[(target * 4)...]))
        // The second request asked for the bytes from a little before 21.5 s of 30 s, with
        // If-Range; the part between the buffer and the target was skipped.
        #expect(server.requests.count == 2)
        let start = try #require(server.requests.last?.range?.start)
        #expect(start > Int64(content.count) * 65 / 100 && start < Int64(content.count) * 72 / 100)
        #expect(server.requests.last?.headers["if-range"] == "\"v1\"")
    }

    @Test func aSeekPastTheBufferInAVBRFileLandsNearTheTargetAndTheClockFollowsTheAudio() async throws {
        let file = try await PlayerFiles.long(30, ["-V", "4"])
        let url = try TestNginx.url((file as NSString).lastPathComponent)
        let (after, run, player) = try await seekWhilePaused(url, to: 20, configure: { $0.bufferLimit = .bytes(64 * 1024) }) {
            $0.progress.bytesReceived >= 40 * 1024
        }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.mpg123(file)
        // The Xing table is an estimate: the audio starts within a second of the target ...
        let landed = try #require(PlayerFiles.locate(after[...], in: reference, channels: 2, around: 20 * 44100, window: 44100))
        // ... and what follows is the file from there to the end (the end untrimmed: where
        // the frames are is an estimate, so the encoder's padding is played, under two frames).
        let rest = reference[(landed * 4)...]
        #expect(after.count >= rest.count && after.count - rest.count <= 2 * 1152 * 4)
        #expect(after.prefix(rest.count).elementsEqual(rest))
        // The clock shows where the audio is, as well as the table knows it.
        #expect(abs(player.progress.position - Double(after.count / 4 + landed) / 44100) < 1.5)
    }

    @Test(arguments: [5.0, 25.0])
    func aServerWithoutRangesIsReadFromTheStartAndTheTargetIsExact(_ target: Double) async throws {
        let file = try await PlayerFiles.long(30, ["-b", "128"])
        let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: content)
        }
        defer { server.stop() }
        // Buffer 64 KiB paused, play 10 s... then seek back to 5 s or on to 25 s.
        let (after, run, _) = try await seekWhilePaused(server.url("/a.mp3"), to: target, configure: { $0.bufferLimit = .bytes(64 * 1024) })
        {
            $0.progress.bytesReceived >= 40 * 1024
        }
        #expect(run.finalState == .done)
        let reference = try await ReferenceDecoder.mpg123(file)
        let frame = Int(target * 44100)
        #expect(after[...].elementsEqual(reference[(frame * 4)...]))
        // Every request after the first asked for a range; none was honoured, so each answer
        // was read from byte 0.
        #expect(server.requests.count >= 2)
    }

    /// A server without ranges, seeks made as playing starts (by a delegate, on the player's
    /// queue): the first asks for a range and gets the whole file (read from byte 0, dropping
    /// up to the target); the second, further on, reads on along the same connection (or, on a
    /// slow machine, finds its target queued): two requests in all, and the audio exact.
    @Test func aSecondSeekForwardWithoutRangesReadsOn() async throws {
        let file = try await PlayerFiles.long(30, ["-b", "128"])
        let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(status: 200, headers: [("Content-Type", "audio/mpeg")], body: content)
            response.bytesPerSecond = 160_000
            return response
        }
        defer { server.stop() }
        let recording = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { recording }
        configuration.bufferLimit = .bytes(64 * 1024)
        let player = AudioStreamer(url: server.url("/a.mp3"), configuration: configuration)
        player.delegate = SeekWhenPlaying(to: [10, 20])
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done, "\(run.events.filter { if case .progress = $0 { false } else { true } })")
        let reference = try await ReferenceDecoder.mpg123(file)
        let after = recording.segments.last ?? []
        #expect(after.count == reference.count - 20 * 44100 * 4)
        #expect(after[...].elementsEqual(reference[(20 * 44100 * 4)...]))
        #expect(server.requests.count == 2)
    }

    // MARK: - Network trouble

    @Test func aStreamSlowerThanItsBitRateBuffersAndNeverPlaysGarbage() async throws {
        let name = "mp3-cbr128.mp3"
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            response.bytesPerSecond = 8000  // half of 128 kbit/s
            return response
        }
        defer { server.stop() }
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(server.url("/slow.mp3")) {
            $0.output = { WAVFileOutput(path: wav) }
            $0.restartThreshold = .milliseconds(300)
        }
        #expect(run.finalState == .done)
        #expect(run.bufferingStarts >= 2)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(reference))
    }

    @Test func aDroppedConnectionReconnectsFromTheNextByteNeeded() async throws {
        let name = "mp3-vbr-v0.mp3"
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            if request.range == nil { response.closeAfter = 30_000 }
            return response
        }
        defer { server.stop() }
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(server.url("/drop.mp3")) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done)
        #expect(run.reconnects == 1)
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.range?.start == 30_000)
        #expect(server.requests.last?.headers["if-range"] == "\"v1\"")
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(reference))
    }

    /// Paused while its output opens: the output that then opens is paused as soon as the
    /// player hears of it, and plays nothing more until play (before, an unpaced output played
    /// the whole file while "paused").
    @Test func aPauseWhileTheOutputOpensKeepsItPaused() async throws {
        let opening = OpeningGateOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration()
        configuration.output = { opening }
        let player = AudioStreamer(url: try PlayerFiles.served("mp3-cbr128.mp3"), configuration: configuration)
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            try await PlayerRun.wait { opening.isOpening }
            player.pause()
            try await PlayerRun.wait { player.state == .paused }
            opening.letOpen()
            try await PlayerRun.wait(limit: 10) { opening.pauses.first == true }
            // What it wrote before the pause came is heard; then nothing more until play.
            let heard = player.progress.position
            try await Task.sleep(for: .milliseconds(200))
            #expect(player.state == .paused)
            #expect(player.progress.position == heard)
            player.play()
        }
        #expect(run.finalState == .done)
    }

    @Test func aConnectionClosedWhilePausedIsReopenedOnResume() async throws {
        let name = "mp3-cbr320.mp3"
        let content = try AudioFixtures.bytes(name)
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            // Like a server's idle timeout: the first connection ends while the player is paused.
            if request.range == nil { response.closeAfter = 60_000 }
            return response
        }
        defer { server.stop() }
        let recording = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration()
        configuration.output = { recording }
        configuration.bufferLimit = .bytes(32 * 1024)
        let player = AudioStreamer(url: server.url("/idle.mp3"), configuration: configuration)
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            player.pause()
            try await PlayerRun.wait { server.bodyBytesSent >= 60_000 }
            player.play()
        }
        #expect(run.finalState == .done, "\(run.events.filter { if case .progress = $0 { false } else { true } })")
        #expect(run.reconnects == 1)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(recording.segments.joined().elementsEqual(reference))
    }

    @Test func aStreamThatStopsForeverEndsWithTheTimeoutError() async throws {
        let content = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try TestHTTPServer { request in
            var response = TestHTTPServer.Response.file(content, for: request)
            // The first answer stops after 20 000 bytes; every later one sends nothing.
            response.stallAfter = request.range == nil ? 20_000 : 0
            return response
        }
        defer { server.stop() }
        let started = Date()
        let run = try await PlayerRun.play(server.url("/stall.mp3")) {
            $0.inactivityTimeout = .milliseconds(500)
            $0.reconnectAttempts = 2
            $0.reconnectDelay = .milliseconds(100)
        }
        #expect(run.error?.code == .timedOut, "\(run.events)")
        // Two reconnects after the last byte of progress (a loaded machine can let the first
        // connection's last bytes land after its stall was judged, adding one).
        #expect(run.reconnects >= 2)
        #expect(Date().timeIntervalSince(started) >= 1.5)
    }

    @Test func aClientErrorIsNotRetried() async throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Response(status: 404, body: Array("gone".utf8)) }
        defer { server.stop() }
        let run = try await PlayerRun.play(server.url("/missing.mp3"))
        #expect(run.error?.code == .httpStatus)
        #expect(run.error?.status == 404)
        #expect(server.requests.count == 1)
    }

    // MARK: - Bad input

    @Test func anHTMLPageIsNotAudio() async throws {
        let page = Array("<!DOCTYPE html><html><head><title>Not audio</title></head><body>hello</body></html>".utf8)
        let server = try TestHTTPServer { _ in
            TestHTTPServer.Response(status: 200, headers: [("Content-Type", "text/html")], body: page)
        }
        defer { server.stop() }
        let run = try await PlayerRun.play(server.url("/page"))
        #expect(run.error?.code == .unsupportedFormat, "\(run.events)")
    }

    @Test func aTruncatedMP3PlaysWhatThereIs() async throws {
        let name = "mp3-vbr-v0.mp3"
        let content = try AudioFixtures.bytes(name)
        let cut = Array(content[..<(content.count * 3 / 5 + 17)])
        let server = try TestHTTPServer { request in .file(cut, for: request) }
        defer { server.stop() }
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(server.url("/cut.mp3")) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done)
        let played = try ReferenceDecoder.wavData(wav)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(played.count > reference.count / 2 && played.count < reference.count * 7 / 10)
        #expect(played[...].elementsEqual(reference[..<played.count]))
    }

    @Test func garbageInTheMiddleIsSkipped() async throws {
        let name = "mp3-cbr128.mp3"
        var bytes = try AudioFixtures.bytes(name)
        var generator = SplitMix64(seed: 3)
        bytes.insert(contentsOf: (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: bytes.count / 2)
        let content = bytes
        let server = try TestHTTPServer { request in .file(content, for: request) }
        defer { server.stop() }
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(server.url("/garbage.mp3")) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done)
        let played = try ReferenceDecoder.wavData(wav)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(abs(played.count - reference.count) < reference.count / 10)
    }

    // MARK: - Controls

    @Test func stopReleasesEverythingAtOnce() async throws {
        let file = try await PlayerFiles.long(30, ["-b", "128"])
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: true) }
        let player = AudioStreamer(url: try TestNginx.url((file as NSString).lastPathComponent), configuration: configuration)
        let stopper = StopWhenPlaying()
        player.delegate = stopper
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .stopped(.user))
        #expect(run.events.contains(.stateChanged(.playing)))
        #expect(player.progress.position < 5)
    }

    @Test func volumeScalesTheSamples() async throws {
        let name = "mp3-cbr128.mp3"
        let wav = try Self.temporaryWAV()
        let run = try await PlayerRun.play(try PlayerFiles.served(name)) {
            $0.output = { WAVFileOutput(path: wav) }
            $0.volume = 0.5
        }
        #expect(run.finalState == .done)
        let played = try ReferenceDecoder.wavData(wav)
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        #expect(played.count == reference.count)
        played.withUnsafeBytes { p in
            reference.withUnsafeBytes { r in
                let a = p.bindMemory(to: Int16.self), b = r.bindMemory(to: Int16.self)
                for i in stride(from: 0, to: a.count, by: 97) { #expect(abs(Int(a[i]) - Int(b[i]) / 2) <= 1) }
            }
        }
    }

    @Test func theRawTapSeesTheOriginalBytes() async throws {
        let name = "mp3-id3v23-picture.mp3"
        let content = try AudioFixtures.bytes(name)
        let saved = TapRecorder()
        let run = try await PlayerRun.play(try PlayerFiles.served(name)) { configuration in
            configuration.rawTap = { offset, bytes in saved.record(offset, bytes) }
        }
        #expect(run.finalState == .done)
        #expect(saved.bytes.elementsEqual(content))
    }
}

/// Collects the raw tap's bytes in order.
final class TapRecorder: Sendable {
    private let state = Mutex<[UInt8]>([])
    func record(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        state.withLock {
            #expect(Int64($0.count) == offset)
            $0 += bytes
        }
    }
    var bytes: [UInt8] { state.withLock { $0 } }
}

/// Stops a streamer as soon as it plays (on the streamer's own queue, not the test's).
final class StopWhenPlaying: AudioStreamerDelegate {
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        if event == .stateChanged(.playing) { streamer.stop() }
    }
}

/// Seeks a streamer to the next of `times` each time it starts playing (on its own queue).
final class SeekWhenPlaying: AudioStreamerDelegate {
    private let times: Mutex<[Double]>
    init(to times: [Double]) { self.times = Mutex(times) }
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        guard event == .stateChanged(.playing), let time = times.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
        do { try streamer.seek(to: time) } catch { Issue.record("seek to \(time): \(error)") }
    }
}
