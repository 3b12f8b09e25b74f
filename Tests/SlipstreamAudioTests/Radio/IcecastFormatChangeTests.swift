import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// A station whose format changes with each song, on the real Icecast: ezstream plays a 44.1 kHz
/// stereo and a 22.05 kHz mono MP3 (no Xing frames, as a station's files are joined) over and
/// over. At each change the player makes a new decoder and opens its output again for the new
/// format; a song heard whole is exactly mpg123's decode of its file: no frame lost at either
/// change, no silence and no noise.
@Suite(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
struct IcecastFormatChangeTests {
    @Test func eachSongOfAStationPlaysWholeInItsOwnFormat() async throws {
        let icecast = try TestIcecast.shared()
        let mount = TestIcecast.uniqueMount("format-change")
        let songs = ["mp3-cbr128-noxing.mp3", "mp3-mpeg2-22050-mono-noxing.mp3"]
        let source = try await icecast.startPlaylistSource(on: mount, playing: try songs.map { try AudioFixtures.path($0) })
        // In real time, as a listener hears it: a change that left a gap would show as buffering.
        let output = FormatRecordingOutput(paced: true)
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        let player = AudioStreamer(url: icecast.url(mount), configuration: configuration)
        // Two changes at least: the song playing when it connects, a whole one, the next.
        let stopper = StopAtFormatCount(output: output, count: 3)
        player.delegate = stopper
        let run = try await PlayerRun.collect(player, limit: 60)
        await source.stop()
        #expect(run.finalState == .stopped(.user), "\(run.events.suffix(8))")
        let started = try #require(run.events.firstIndex(of: .stateChanged(.playing)))
        let events = run.events[started...].filter { if case .progress = $0 { false } else { true } }
        #expect(!events.contains(.bufferingStarted), "\(events)")
        let parts = output.parts
        try #require(parts.count >= 3, "\(parts.map(\.format))")
        let formats = [PCMFormat(sampleRate: 44100, channels: 2), PCMFormat(sampleRate: 22050, channels: 1)]
        #expect(parts.allSatisfy { formats.contains($0.format) })
        #expect(zip(parts, parts.dropFirst()).allSatisfy { $0.format != $1.format }, "\(parts.map(\.format))")
        // The whole song in the middle, against mpg123's decode of its file.
        let whole = parts[1]
        let song = whole.format == formats[0] ? songs[0] : songs[1]
        let reference = try await ReferenceDecoder.mpg123(AudioFixtures.path(song), gapless: false)
        #expect(whole.bytes.count == reference.count, "\(song): \(whole.bytes.count) bytes played, \(reference.count) in the file")
        let exact = whole.bytes.elementsEqual(reference)
        #expect(exact, "\(song)")
        #expect(output.drainsBeforeReopening >= 2)
    }
}

/// Stops a streamer once its output has been opened for `count` formats one after the other.
private final class StopAtFormatCount: AudioStreamerDelegate {
    let output: FormatRecordingOutput
    let count: Int

    init(output: FormatRecordingOutput, count: Int) {
        self.output = output
        self.count = count
    }

    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        if output.formatCount >= count { streamer.stop() }
    }
}
