import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Seeking in HLS through the whole player: with a buffer too small to hold the target, each
/// seek opens the stream again at the segment holding it; the audio from there is the audio of
/// the whole stream played from the target's sample (the segments' timestamps place it
/// exactly), forward, across segments and back. A live stream refuses to seek.
@Suite(
    .enabled(if: (try? TestNginx.port()) != nil, "run with scripts/test.sh (nginx)"),
    .serialized)
struct HLSSeekTests {
    /// The streams, by their folder's name and playlist: MPEG-TS AAC, MPEG-TS MP3 in byte
    /// ranges, packed audio, AES-128 (the IV from the sequence number), fMP4.
    static let streams: [(folder: String, playlist: String)] = [
        ("ts", "index.m3u8"), ("ranges", "index.m3u8"), ("packed", "packed.m3u8"), ("aes-sequence", "noiv.m3u8"),
        ("fmp4", "index.m3u8"),
    ]

    /// Makes the stream in `folder` (once per process).
    static func make(_ folder: String) async throws {
        try await offPool {
            switch folder {
            case "ts": _ = try HLSFixtures.transportStream()
            case "ranges": _ = try HLSFixtures.byteRanges()
            case "packed": _ = try HLSFixtures.packedAudio()
            case "aes-sequence": _ = try HLSFixtures.encrypted(iv: nil)
            default: _ = try HLSFixtures.fragmentedMP4()
            }
        }
    }

    /// Plays `url` with a 16 KiB buffer (about a second), seeking to the next of `times` each
    /// time it starts playing; the audio after the last seek, the run and the requests made.
    static func play(_ url: String, seeking times: [Double]) async throws -> (after: [UInt8], run: PlayerRun) {
        let recording = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { recording }
        configuration.bufferLimit = .bytes(16 * 1024)
        let player = AudioStreamer(url: url, configuration: configuration)
        player.delegate = SeekWhenPlaying(to: times)
        let run = try await PlayerRun.collect(player)
        return (recording.segments.last ?? [], run)
    }

    /// Checks that `after` is `whole` from frame `frame` on (s16 stereo): as long, and the same
    /// to the bit (MP3), or for AAC with the sweep on the left the same but for a little noise
    /// (the right channel is pink noise, which the encoder codes as noise and libfaad2 fills from
    /// a generator that restarts with the decoder, see `MP4DecodingTests`; some leaks into the
    /// left through mid/side coding): a mean difference of under 16 (measured: 1.7; one frame
    /// off, 1,700).
    /// A wrong length names the run's states and positions, to tell a seek never made from one
    /// answered out of order.
    static func expectTail(
        _ after: [UInt8], of whole: [UInt8], from frame: Int, run: PlayerRun, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let start = frame * 4
        guard start <= whole.count, after.count == whole.count - start else {
            let told = run.events.compactMap { event -> String? in
                switch event {
                case .stateChanged(let state): "\(state)"
                case .progress(let progress): String(format: "at %.2f", progress.position)
                default: nil
                }
            }
            Issue.record(
                "\(after.count / 4) frames after the seek, \(whole.count / 4 - frame) expected; \(told)", sourceLocation: sourceLocation)
            return
        }
        let tail = Array(whole[start...])
        guard after != tail else { return }
        let difference = meanLeftDifference(after, tail)
        #expect(
            difference < 16, "the left channel differs by \(difference) on average from frame \(frame) on", sourceLocation: sourceLocation)
    }

    /// The mean absolute difference of the left channels of two s16 stereo blocks of one length.
    static func meanLeftDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                let (x, y) = (x.bindMemory(to: Int16.self), y.bindMemory(to: Int16.self))
                let sum = stride(from: 0, to: min(x.count, y.count), by: 2).reduce(0) { $0 + abs(Int(x[$1]) - Int(y[$1])) }
                return Double(sum) / Double(max(min(x.count, y.count) / 2, 1))
            }
        }
    }

    @Test(arguments: streams)
    func aSeekIntoASegmentIsExact(_ stream: (folder: String, playlist: String)) async throws {
        try await Self.make(stream.folder)
        let url = try HLSFixtures.url(stream.folder, stream.playlist)
        let (_, whole) = try await PlaylistPlayerTests.play(url)
        let (after, run) = try await Self.play(url, seeking: [3.3])
        #expect(run.finalState == .done, "\(run.events)")
        Self.expectTail(after, of: whole, from: Int(3.3 * 44100), run: run)
    }

    @Test(arguments: streams)
    func seeksForwardAcrossSegmentsThenBackAreExact(_ stream: (folder: String, playlist: String)) async throws {
        try await Self.make(stream.folder)
        let url = try HLSFixtures.url(stream.folder, stream.playlist)
        let (_, whole) = try await PlaylistPlayerTests.play(url)
        let (after, run) = try await Self.play(url, seeking: [5.7, 1.1])
        #expect(run.finalState == .done, "\(run.events)")
        Self.expectTail(after, of: whole, from: Int(1.1 * 44100), run: run)
    }

    /// Joined late, an EVENT playlist's position is its time from the playlist's start, from
    /// the first progress on: the second segment's, 2 s (the third starts less than three
    /// target durations before the end), not 0.
    @Test func anEventPlaylistJoinedLateTellsItsTimeFromItsStart() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let vod = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        let event = vod.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD", with: "#EXT-X-PLAYLIST-TYPE:EVENT")
            .replacingOccurrences(of: #"#EXT-X-TARGETDURATION:\d+"#, with: "#EXT-X-TARGETDURATION:1", options: .regularExpression)
            .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
        try event.write(toFile: folder + "/event-late.m3u8", atomically: true, encoding: .utf8)
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { NullOutput(paced: true) }
        let player = AudioStreamer(url: try HLSFixtures.url("ts", "event-late.m3u8"), configuration: configuration)
        let first = Mutex<Double?>(nil)
        _ = try await PlayerRun.collect(player) { player in
            player.play()
            try await PlayerRun.wait { player.progress.position > 0 }
            first.withLock { $0 = player.progress.position }
            player.stop()
        }
        let position = try #require(first.withLock { $0 })
        #expect(position > 1.9 && position < 4, "\(position)")
    }

    /// An EVENT playlist not yet ended starts near its live end (the third segment here), yet
    /// keeps its segments: a seek goes back to the first; the playlist ends once the seek was made.
    @Test func anEventPlaylistSeeksBackToItsStart() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        let vod = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
        let event = vod.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD", with: "#EXT-X-PLAYLIST-TYPE:EVENT")
            .replacingOccurrences(of: #"#EXT-X-TARGETDURATION:\d+"#, with: "#EXT-X-TARGETDURATION:1", options: .regularExpression)
        #expect(event.contains("EVENT") && event.contains("TARGETDURATION:1"))
        try event.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "").write(
            toFile: folder + "/event.m3u8", atomically: true, encoding: .utf8)
        let first = "/files/hls-\(getpid())-ts/s0.ts"
        let before = try TestNginx.requests(to: first).count
        let writer = Task {
            try await PlayerRun.wait(limit: 60) { ((try? TestNginx.requests(to: first)) ?? []).count > before }
            try event.write(toFile: folder + "/event.m3u8", atomically: true, encoding: .utf8)
        }
        let (after, run) = try await Self.play(try HLSFixtures.url("ts", "event.m3u8"), seeking: [0.5])
        try await writer.value
        #expect(run.finalState == .done, "\(run.events)")
        let (_, whole) = try await PlaylistPlayerTests.play(try HLSFixtures.url("ts", "index.m3u8"))
        Self.expectTail(after, of: whole, from: Int(0.5 * 44100), run: run)
    }

    @Test func aLiveStreamRefusesToSeek() async throws {
        let folder = try await offPool { try HLSFixtures.transportStream() }
        try HLSAudioSourceTests.livePlaylist([0, 1, 2]).write(toFile: folder + "/live-seek.m3u8", atomically: true, encoding: .utf8)
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { NullOutput(paced: true) }
        let player = AudioStreamer(url: try HLSFixtures.url("ts", "live-seek.m3u8"), configuration: configuration)
        let refusal = Mutex<AudioStreamerError?>(nil)
        let run = try await PlayerRun.collect(player) { player in
            player.play()
            try await PlayerRun.wait { player.state == .playing }
            do throws(AudioStreamerError) {
                try player.seek(to: 60)
            } catch {
                refusal.withLock { $0 = error }
            }
            player.stop()
        }
        let error = try #require(refusal.withLock { $0 }, "\(run.events)")
        #expect(error.code == .seek)
        #expect(error.message.contains("live"), "\(error.message)")
    }
}
