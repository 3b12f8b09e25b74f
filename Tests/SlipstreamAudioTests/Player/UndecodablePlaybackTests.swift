import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player with streams whose frames are there and whose contents are not audio: it tells
/// how many frames it could not decode, plays on through a few, and stops with `.undecodable`
/// when most of the stream is (local files, into a WAV file or the null output).
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct UndecodablePlaybackTests {
    /// `bytes` in a file of its own, named `name`; its path.
    static func file(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = try TestFiles.makeTemporaryFolder() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The counts the player told, in order.
    static func counts(_ run: PlayerRun) -> [(count: Int, total: Int)] {
        run.events.compactMap { if case .undecodableFrames(let count, let total) = $0 { (count, total) } else { nil } }
    }

    /// MP3 frames with real headers and random payloads (3 s): libmpg123 returned success for
    /// each, and the player played 3 s of silence and noise and said nothing. Now it stops at
    /// the 64th frame, with the count, and what it wrote is silence.
    @Test func mp3FramesWithRandomPayloadsStopPlaybackWithTheCount() async throws {
        let bytes = GarbledAudio.mp3(try AudioFixtures.bytes("mp3-cbr128.mp3"), seed: 1) { _ in true }
        let path = try Self.file(bytes, "random.mp3")
        let wav = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let run = try await PlayerRun.play(path) { $0.output = { WAVFileOutput(path: wav) } }
        let error = try #require(run.error, "\(run.events)")
        #expect(error.code == .undecodable && error.path == path)
        let last = try #require(Self.counts(run).last)
        #expect(last.total == DecodeTally.minimumFrames && 2 * last.count > last.total, "\(Self.counts(run))")
        #expect(error.message == "\(path): most of the stream could not be decoded: \(last.count) of \(last.total) frames")
        // Nothing of the stream was heard but silence: the frames it decoded are noise, and
        // those the player could not decode it silenced.
        let played = (try? ReferenceDecoder.wavData(wav)) ?? []
        #expect(played.count < 64 * 1152 * 4)
        let loud = played.withUnsafeBytes { $0.bindMemory(to: Int16.self).filter { abs(Int($0)) > 1000 }.count }
        #expect(loud < 1152 * 2, "\(loud) loud samples")
    }

    /// A real MP4 index over random bytes: libfaad2 refused every access unit, and the player
    /// played 3 s of silence and said nothing.
    @Test func anM4AIndexOverRandomBytesStopsPlayback() async throws {
        let bytes = try #require(GarbledAudio.m4aHeadThenRandom(try AudioFixtures.bytes("mp4-aac-faststart.m4a"), seed: 1))
        let run = try await PlayerRun.play(try Self.file(bytes, "random.m4a"))
        #expect(run.error?.code == .undecodable, "\(run.events)")
        #expect(Self.counts(run).last.map { $0.count == $0.total && $0.total == DecodeTally.minimumFrames } == true)
    }

    /// A stream shorter than the 64 frames the rule waits for, all of it garbled: it ends with
    /// the error, not as played.
    @Test func aShortStreamThatIsMostlyUndecodableEndsWithTheError() async throws {
        let original = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let bytes = Array(GarbledAudio.mp3(original, seed: 2, impossible: true) { $0 > 0 }.prefix(30 * 417))
        let run = try await PlayerRun.play(try Self.file(bytes, "short.mp3"))
        #expect(run.error?.code == .undecodable, "\(run.events)")
    }

    /// A few impossible frames among good ones: the stream plays to the end, the last count
    /// told is exactly theirs, told before the end, and the counts never go more than once a
    /// second.
    @Test func aFewDamagedFramesPlayOnAndAreCounted() async throws {
        let original = try AudioFixtures.bytes("mp3-cbr128.mp3")
        let bytes = GarbledAudio.mp3(original, seed: 3, impossible: true) { $0 > 0 && $0 % 20 == 0 }
        let run = try await PlayerRun.play(try Self.file(bytes, "damaged.mp3"))
        #expect(run.finalState == .done, "\(run.events)")
        let counts = Self.counts(run)
        #expect(counts.last?.count == (GarbledAudio.mp3FrameCount(original) - 1) / 20, "\(counts)")
        // Decoded as fast as it goes: the first count at once, the final one at the end.
        #expect(counts.count <= 3, "\(counts)")
        let lastCount = try #require(run.events.lastIndex { if case .undecodableFrames = $0 { true } else { false } })
        let done = try #require(run.events.firstIndex(of: .stateChanged(.done)))
        #expect(lastCount < done)
    }

    /// A real stream: no count at all.
    @Test func aRealStreamTellsNoCount() async throws {
        let run = try await PlayerRun.play(try AudioFixtures.path("mp3-cbr128.mp3"))
        #expect(run.finalState == .done)
        #expect(Self.counts(run).isEmpty)
    }
}
