import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player against outputs that play at real time: the headless PulseAudio server the test
/// script starts, and ALSA's null device. Only lower bounds on time.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct AudioStreamerPacedTests {
    /// Plays a 3 s fixture with `output`, pausing for half a second once it plays; the clock
    /// ends at the whole duration and, for an output that keeps time, the pause happened and
    /// the run took at least the audio's length plus the pause.
    func playWithAPause(realTime: Bool = true, _ output: @escaping @Sendable () throws(AudioOutputError) -> any AudioOutput) async throws {
        var configuration = AudioStreamerConfiguration()
        configuration.output = output
        let player = AudioStreamer(url: try PlayerFiles.served("mp3-cbr128.mp3"), configuration: configuration)
        let pauser = PauseOnceWhenPlaying()
        player.delegate = pauser
        let started = Date()
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done, "\(run.events)")
        // An output that keeps no time can take the whole stream before the pause is handled.
        if realTime { #expect(run.events.contains(.stateChanged(.paused))) }
        let reference = try #require(AudioFixtures.references.first { $0.name == "mp3-cbr128.mp3" })
        let duration = Double(reference.samples) / Double(reference.sampleRate)
        #expect(abs(player.progress.position - duration) < 0.001)
        if realTime { #expect(Date().timeIntervalSince(started) >= duration + 0.4) }
    }

    @Test(.enabled(if: testPulseServer != nil, "no headless PulseAudio server could be started (scripts/setup.sh installs pulseaudio)"))
    func playsAtRealTimeThroughPulseAudio() async throws {
        let server = try #require(testPulseServer)
        try await playWithAPause { PulseAudioOutput(server: server) }
    }

    @Test func playsAtRealTimeThroughThePacedNullOutput() async throws {
        try await playWithAPause { NullOutput(paced: true) }
    }

    /// ALSA's null device takes everything at once (it keeps no time).
    @Test func playsThroughALSAsNullDevice() async throws {
        try await playWithAPause(realTime: false) { ALSAOutput(device: "null") }
    }
}

/// Pauses a streamer for half a second the first time it plays.
final class PauseOnceWhenPlaying: AudioStreamerDelegate {
    private let paused = Mutex(false)
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        guard event == .stateChanged(.playing),
            !paused.withLock({
                let was = $0; $0 = true; return was
            })
        else { return }
        streamer.pause()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { streamer.play() }
    }
}
