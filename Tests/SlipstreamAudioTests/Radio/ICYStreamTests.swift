import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// A radio stream as an old SHOUTcast server sends it (`ICY 200 OK`, `icy-metaint`, titles in
/// UTF-8 and in Latin-1), from the in-test server: the player asks for the metadata, takes it
/// out before the parser and the raw tap, and announces each title when its audio is heard.
/// (The same against a real Icecast: IcecastTests.)
@Suite(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
struct ICYStreamTests {
    static let interval = 8000
    /// Block 0 a UTF-8 title, block 2 a Latin-1 one, repeated in block 3 (not a change).
    static let titles: [[UInt8]?] = [
        Array("Erste – Eins".utf8), nil, Array("Zweite ".utf8) + [0xDC], Array("Zweite ".utf8) + [0xDC],
    ]

    /// Serves `stream` as a radio station does, asking nothing of the request.
    static func station(_ stream: [UInt8]) throws -> TestHTTPServer {
        try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(
                status: 200,
                headers: [
                    ("Content-Type", "audio/mpeg"), ("icy-metaint", "\(interval)"), ("icy-name", "Test FM"),
                    ("icy-genre", "Jazz"), ("icy-br", "128"), ("icy-url", "http://radio.test/"),
                ],
                body: stream)
            response.statusLine = "ICY 200 OK"
            response.untilClose = true
            return response
        }
    }

    @Test func titlesAreTakenOutOfTheAudioAndToldWhenHeard() async throws {
        let file = try PlayerFiles.fixture("mp3-cbr128.mp3")
        let audio = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try Self.station(ICYStream.build(audio: audio, interval: Self.interval, titles: Self.titles))
        defer { server.stop() }
        let wav = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let tapped = Mutex<[UInt8]>([])
        var configuration = AudioStreamerConfiguration()
        configuration.output = { WAVFileOutput(path: wav) }
        // The station's stream is live: its end would be reconnected. Once is enough here.
        configuration.liveReconnectAttempts = 0
        configuration.rawTap = { offset, bytes in
            tapped.withLock {
                #expect(Int64($0.count) == offset); $0 += bytes
            }
        }
        let player = AudioStreamer(url: server.url("/stream"), configuration: configuration)
        let heard = HeardTitles()
        player.delegate = heard
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done, "\(run.events)")
        #expect(server.requests.first?.headers["icy-metadata"] == "1")
        // Not a byte of metadata reached the parser or the tap.
        #expect(tapped.withLock { $0 } == audio)
        #expect(try ReferenceDecoder.wavData(wav).elementsEqual(try await ReferenceDecoder.mpg123(file)))
        let titles = run.events.compactMap { if case .titleChanged(let title) = $0 { title.title } else { nil } }
        #expect(titles == ["Erste – Eins", "Zweite Ü"])
        #expect(run.events.contains(.station(StationInfo(name: "Test FM", genre: "Jazz", url: "http://radio.test/", bitRate: 128))))
        #expect(player.title?.title == "Zweite Ü")
        // Each title was told once the output had played up to its byte (128 kbit/s: 16,000
        // bytes a second; less a frame for where the packet starts).
        for (title, position) in heard.positions {
            let block = title == "Erste – Eins" ? 1 : 3
            #expect(position >= Double(block * Self.interval) / 16000 - 0.03, "\(title) at \(position) s")
        }
    }
}

extension ICYStreamTests {
    /// A live stream whose responses end (the station drops its listeners) is reconnected and
    /// plays on; each response's metadata is counted anew, and its titles are told again.
    @Test func aLiveStreamThatEndsIsReconnectedAndPlaysOn() async throws {
        let audio = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try Self.station(ICYStream.build(audio: audio, interval: Self.interval, titles: Self.titles))
        defer { server.stop() }
        let output = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        configuration.liveReconnectAttempts = 2
        configuration.reconnectDelay = .milliseconds(50)
        let run = try await PlayerRun.collect(AudioStreamer(url: server.url("/stream"), configuration: configuration))
        #expect(run.finalState == .done, "\(run.events)")
        #expect(server.requests.count == 3)
        #expect(run.reconnects == 2)
        let titles = run.events.compactMap { if case .titleChanged(let title) = $0 { title.title } else { nil } }
        #expect(titles.count == 6)
        if titles.count == 6 { #expect(titles == Array(repeating: ["Erste – Eins", "Zweite Ü"], count: 3).flatMap { $0 }) }
        // Three times the audio (each response decoded whole, give or take the decoder's start).
        let once = try await ReferenceDecoder.mpg123(try PlayerFiles.fixture("mp3-cbr128.mp3")).count
        let played = output.segments.reduce(0) { $0 + $1.count }
        #expect(played > once * 3 - 3 * 4 * 2 * 1152 && played < once * 3 + 3 * 4 * 2 * 1152, "\(played) vs 3 x \(once)")
    }
}

extension ICYStreamTests {
    /// `info` on a station that never ends answers after a few seconds of it at most: the
    /// station's facts, the format and bit rate, live, and the title told meanwhile.
    @Test func infoOnALiveStreamDescribesTheStationAndItsTitle() async throws {
        let audio = try AudioFixtures.bytes("mp3-cbr128.mp3")
        // Sent in real time (16,000 bytes a second) for as long as the file is, over and over.
        let looped = Array(repeatElement(audio, count: 20).joined())
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "audio/mpeg"), ("icy-metaint", "16000"), ("icy-name", "Loop FM")],
                body: ICYStream.build(audio: looped, interval: 16000, titles: [Array("Artist - Loop".utf8)]))
            response.statusLine = "ICY 200 OK"
            response.untilClose = true
            response.bytesPerSecond = 16000
            return response
        }
        defer { server.stop() }
        let info = try await AudioInfo.read(from: server.url("/live"))
        #expect(info.source.isLive)
        #expect(info.source.station?.name == "Loop FM")
        #expect(info.source.title == StreamTitle(title: "Artist - Loop"))
        #expect(info.audio.format.sampleRate == 44100)
        #expect(info.audio.bitRate?.bitsPerSecond == 128_000)
        #expect(info.audio.duration == nil)
        #expect(server.requests.count == 1)
        // A few seconds' worth, not the 256 KiB a file's head read takes.
        #expect(info.source.bytesRead < 100_000, "\(info.source.bytesRead)")
    }
}

extension ICYStreamTests {
    /// Paused, a live stream buffers up to its limit and then pauses its transfer; the station
    /// drops the connection meanwhile; on play, what was buffered plays, the end is found, and
    /// the stream is reconnected (back to live), saying so.
    @Test func aPausedLiveStreamDroppedByTheStationIsReconnectedOnPlay() async throws {
        let audio = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let looped = ICYStream.build(audio: Array(repeatElement(audio, count: 40).joined()), interval: 16000, titles: [String]())
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "audio/mpeg"), ("icy-metaint", "16000")], body: looped)
            response.untilClose = true
            // Sixty times real time: the sockets' buffers, which loopback TCP grows to megabytes,
            // fill in seconds (at 64 kB/s this took 30 s alone and over a minute in a full run).
            response.bytesPerSecond = 1_000_000
            return response
        }
        defer { server.stop() }
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: false) }
        configuration.bufferLimit = .bytes(64 * 1024)
        configuration.reconnectDelay = .milliseconds(50)
        let player = AudioStreamer(url: server.url("/live"), configuration: configuration)
        // Once, in a full parallel run on a loaded machine, the paused player took in all that
        // was sent (3.9 MB with a 64 KiB buffer): the pause came while the output was starting,
        // and the output then played, unpaced, while the player said "paused" (fixed; the
        // state machine's `anOutputThatStartsWhilePausedIsPausedAtOnce`).
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            player.pause()
            // The player's transfer pauses once its 64 KiB buffer is full (how full depends on
            // the sizes of the reads: the first that does not fit pauses it); then the station
            // drops the connection while the player is paused: it cannot know yet. (The
            // sockets between them never settle: the kernel takes in more, slowly, for a
            // minute and more.)
            // Looked at from a thread of its own, once a second: in a full parallel run the
            // concurrency pool was once so busy that a task's sleep of a second lasted half a
            // minute (two looks in a minute).
            let received = try await offPool { () throws -> Int64 in
                var counts: [Int64] = []
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    counts.append(player.progress.bytesReceived)
                    if counts.count >= 2, counts[counts.count - 2] == counts.last!, counts.last! >= 32 * 1024 { return counts.last! }
                    Thread.sleep(forTimeInterval: 1)
                }
                let shown = counts.suffix(12).map(String.init).joined(separator: ", ")
                throw PlayerRun.WaitedTooLong(at: "sent \(server.bodyBytesSent), received \(shown) (a second apart), \(player.state)")
            }
            server.dropConnections()
            let sent = server.bodyBytesSent
            // The buffer and at most one read more (libcurl's reads are 16 KiB at most), beyond
            // what played (128 kbit/s) before the pause took hold: on a loaded machine the
            // unpaced output can play a second and more between `play()` and `pause()`.
            let played = Int64(player.progress.position * 16_000)
            #expect(received - played <= 84 * 1024, "the paused player read on: \(received) of \(sent), \(played) played")
            #expect(player.state == .paused)
            player.play()
            // Bytes beyond the first response's came from the second (an unpaced output flips
            // between playing and buffering too fast for its state to be polled).
            try await PlayerRun.wait { server.requests.count >= 2 && player.progress.bytesReceived > Int64(sent) + 16000 }
            player.stop()
        }
        #expect(
            run.events.contains { if case .reconnecting(1, let error) = $0 { error.message.contains("ended") } else { false } },
            "\(run.events.suffix(12))")
        #expect(run.finalState == .stopped(.user))
    }
}

extension ICYStreamTests {
    /// A station that stalls after a few frames: `info` answers with what came once its time
    /// for a live stream is up, not after the network's own timeout.
    @Test func infoOnALiveStreamThatStallsAnswersWithWhatCame() async throws {
        let audio = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let server = try TestHTTPServer { _ in
            var response = TestHTTPServer.Response(
                status: 200, headers: [("Content-Type", "audio/mpeg"), ("icy-metaint", "16000"), ("icy-name", "Stall FM")],
                body: ICYStream.build(audio: audio, interval: 16000, titles: [String]()))
            response.untilClose = true
            response.stallAfter = 12000
            return response
        }
        defer { server.stop() }
        let info = try await AudioInfo.read(from: server.url("/stalls"))
        #expect(info.source.isLive && info.source.station?.name == "Stall FM")
        #expect(info.audio.format.sampleRate == 44100)
        #expect(info.source.bytesRead == 12000)
    }
}

/// Notes the playback position at each title change, as the streamer tells it.
private final class HeardTitles: AudioStreamerDelegate {
    private let heard = Mutex<[(String, Double)]>([])

    var positions: [(String, Double)] { heard.withLock { $0 } }

    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        if case .titleChanged(let title) = event {
            let position = streamer.progress.position
            heard.withLock { $0.append((title.title, position)) }
        }
    }
}
