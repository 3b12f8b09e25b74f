import Foundation
import SlipstreamHTTP
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player as a radio listener of the real Icecast 2.4 (scripts/icecast.sh): titles set
/// through the admin API in UTF-8 and as Icecast converts them to Latin-1, a metadata interval
/// of a few bytes, a source that goes away and comes back, and a server restart.
@Suite(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
struct IcecastRadioTests {
    /// A player of `url` into `output`, its raw bytes into `tapped`.
    static func player(_ url: String, output: RecordingOutput, tapped: TappedBytes? = nil) -> AudioStreamer {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        configuration.reconnectDelay = .milliseconds(100)
        if let tapped { configuration.rawTap = { _, bytes in tapped.bytes.withLock { $0 += bytes } } }
        return AudioStreamer(url: url, configuration: configuration)
    }

    /// The bytes of one 128 kbit/s 44.1 kHz MP3 frame, and a little more.
    static let oneFrame: Int64 = 420

    /// The titles `run` told, in order.
    static func titles(_ run: PlayerRun) -> [String] {
        run.events.compactMap { if case .titleChanged(let title) = $0 { title.title } else { nil } }
    }

    @Test func titlesInUTF8AndInLatin1AreToldAndNeverReachTheAudio() async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("radio-titles")
        let source = try await icecast.startSource(on: mount, playing: try AudioFixtures.path("mp3-cbr128-noxing.mp3"), as: .mp3)
        let output = RecordingOutput(NullOutput(paced: false))
        let tapped = TappedBytes()
        let player = Self.player(icecast.url(mount), output: output, tapped: tapped)
        // As it is, in UTF-8 (Icecast passes the bytes on), then declared UTF-8 (Icecast sends
        // it in its MP3 mount's Latin-1, which the player reads as Windows-1252).
        let utf8 = "Sigur Rós – Hoppípolla (it's live; encore)"
        let latin1 = "Zwölf Café"
        let run = try await PlayerRun.collect(player, limit: 90) { player in
            player.play()
            try await icecast.setTitle(utf8, on: mount)
            try await PlayerRun.wait { player.title?.title == utf8 }
            try await icecast.setTitle(latin1, on: mount, charset: "UTF-8")
            try await PlayerRun.wait { player.title?.title == latin1 }
            player.stop()
        }
        await source.stop()
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        let titles = Self.titles(run)
        #expect(titles.suffix(2) == [utf8, latin1], "\(titles)")
        #expect(player.station?.name == TestIcecast.Station.test.name)
        #expect(player.station?.genre == TestIcecast.Station.test.genre)
        // Icecast's burst to a new listener may start inside a frame: at most that frame's bytes
        // are skipped (a metadata block left in the audio would be skipped again and again).
        #expect(player.properties.junkByteCount < Self.oneFrame)
        let bytes = tapped.bytes.withLock { $0 }
        #expect(!bytes.isEmpty && bytes.firstRange(of: Array("StreamTitle".utf8)) == nil)
    }

    /// A block every 7 bytes: the filter meets its length byte and its blocks split across
    /// every read; the parser still sees a clean stream.
    @Test func aMetadataIntervalOfAFewBytesLeavesTheAudioClean() async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("radio-tiny", .tinyMetadataInterval)
        let source = try await icecast.startSource(on: mount, playing: try AudioFixtures.path("mp3-cbr128-noxing.mp3"), as: .mp3)
        let output = RecordingOutput(NullOutput(paced: false))
        let player = Self.player(icecast.url(mount), output: output)
        let run = try await PlayerRun.collect(player, limit: 90) { player in
            player.play()
            try await icecast.setTitle("Tiny Interval", on: mount)
            try await PlayerRun.wait { player.title?.title == "Tiny Interval" && player.progress.position > 1 }
            player.stop()
        }
        await source.stop()
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        #expect(player.properties.junkByteCount < Self.oneFrame)
        #expect(player.properties.format?.sampleRate == 44100)
        #expect(output.segments.joined().count > 44100 * 4)
    }

    /// Played to an output nobody hears (the unpaced null output), a live stream's reads gather
    /// from the first audio on: Icecast sends its audio in a dozen or more small pieces a second,
    /// and they come to the player once a second, each read taking many.
    @Test func aLiveStreamToAnOutputNobodyHearsIsReadAFewTimesASecond() async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("radio-unheard")
        let source = try await icecast.startSource(on: mount, playing: try AudioFixtures.path("mp3-cbr128-noxing.mp3"), as: .mp3)
        let output = RecordingOutput(NullOutput(paced: false))
        let reads = Mutex<[(time: Int64, size: Int)]>([])
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        configuration.rawTap = { _, bytes in reads.withLock { $0.append((MonotonicTime.now(), bytes.count)) } }
        // An engine of its own: the shared one runs the other tests' transfers meanwhile, and an
        // engine sleeps between reads only while every transfer it runs gathers.
        let engine = HTTPEngine()
        defer { engine.shutdown() }
        let player = AudioStreamer(url: icecast.url(mount), configuration: configuration, engine: engine)
        let run = try await PlayerRun.collect(player, limit: 90) { player in
            player.play()
            try await PlayerRun.wait { !output.segments.joined().isEmpty }
            // Past Icecast's burst to a new listener, and then a few seconds of live audio.
            try await Task.sleep(for: .seconds(4.5))
            player.stop()
        }
        await source.stop()
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        let all = reads.withLock { $0 }
        let end = all.last?.time ?? 0
        let window = all.filter { $0.time > end - 3_000_000_000 }
        // 128 kbit/s: 16 KB a second. Gathered a second at a time: 3 or 4 reads in 3 s, each
        // perhaps cut in two by the 16 KiB buffer it is read into; read as they come, some 40.
        let bytes = window.reduce(0) { $0 + $1.size }
        #expect(bytes > 30_000, "\(window.count) reads of \(bytes) bytes")
        #expect(window.count <= 10, "\(window.count) reads of \(bytes) bytes in the last 3 s")
    }

    /// The source goes away (Icecast ends its listeners' streams, then answers 404) and comes
    /// back; then Icecast itself restarts (connections refused meanwhile): the player
    /// reconnects each time and plays on, saying so.
    @Test func aLiveStreamPlaysOnAfterItsSourceAndItsServerGoAway() async throws {
        let icecast = try await TestIcecast.startPrivate()
        let mount = TestIcecast.uniqueMount("radio-drop")
        let fixture = try AudioFixtures.path("mp3-cbr128-noxing.mp3")
        var source = try await icecast.startSource(on: mount, playing: fixture, as: .mp3)
        let output = RecordingOutput(NullOutput(paced: false))
        let player = Self.player(icecast.url(mount), output: output)
        let heard = { output.segments.reduce(0) { $0 + $1.count } }
        // Long limits: in a full parallel run the restarts and the reconnects' backoff take
        // minutes (the test takes 10 to 40 s alone).
        let run = try await PlayerRun.collect(player, limit: 300) { player in
            player.play()
            // (Not `state == .playing`: an unpaced output plays what came at once and
            // buffers again, too fast for the state to be polled.)
            try await PlayerRun.wait { heard() > 0 }
            // The source goes away for a moment.
            await source.stop()
            let beforeDrop = heard()
            source = try await icecast.startSource(on: mount, playing: fixture, as: .mp3)
            try await PlayerRun.wait(limit: 120) { heard() > beforeDrop + 44100 * 4 }
            // The server restarts.
            try await icecast.stopServer()
            let beforeRestart = heard()
            try await icecast.startServer()
            source = try await icecast.startSource(on: mount, playing: fixture, as: .mp3)
            try await PlayerRun.wait(limit: 120) { heard() > beforeRestart + 44100 * 4 }
            player.stop()
        }
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        #expect(run.reconnects >= 2, "\(run.events.suffix(12))")
        await source.stop()
    }
}

/// The bytes a raw tap was given.
final class TappedBytes: Sendable {
    let bytes = Mutex<[UInt8]>([])
}
