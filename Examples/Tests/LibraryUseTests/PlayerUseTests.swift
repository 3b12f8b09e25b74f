import SlipstreamAudio
import Testing

/// A player as a program meets it: several readers of its events, the final state last, a seek
/// past the end, a stop before (and while) it plays.
@Suite(.enabled(if: Services.available, Services.skipReason), .timeLimit(.minutes(2)))
struct PlayerUseTests {
    static var fixture: String { (Services.audio ?? "") + "/mp3-cbr128.mp3" }

    /// Decodes as fast as it can, with no sound.
    static var unpaced: AudioStreamerConfiguration {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: false) }
        return configuration
    }

    @Test func everyReaderGetsEveryStateAndTheFinalOneIsLast() async throws {
        let player = AudioStreamer(url: Self.fixture, configuration: Self.unpaced)
        let readers = (0..<2).map { _ in
            Task {
                var events: [AudioStreamerEvent] = []
                for await event in player.events { events.append(event) }
                return events
            }
        }
        player.play()
        #expect(try await player.waitUntilFinished() == .done)
        var states: [[AudioStreamerState]] = []
        for reader in readers {
            let events = await reader.value
            #expect(events.last == .stateChanged(.done))
            // The last progress, where the end was heard, just before it.
            if case .progress(let last)? = events.dropLast().last {
                #expect(abs(last.position - (last.duration ?? 0)) < 0.05, "\(last)")
            } else {
                Issue.record("no progress just before the end: \(events.suffix(2))")
            }
            states.append(events.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } })
        }
        #expect(states[0] == states[1])
    }

    @Test func aSeekPastTheEndIsRefused() async throws {
        let player = AudioStreamer(url: Self.fixture, configuration: Self.unpaced)
        // Paused: it cannot end while the test seeks, however late this task runs.
        player.play()
        player.pause()
        var duration: Double?
        for await case .properties(let properties) in player.events where properties.duration != nil {
            duration = properties.duration
            break
        }
        let known = try #require(duration)
        #expect {
            try player.seek(to: known + 440)
        } throws: { ($0 as? AudioStreamerError)?.code == .seek }
        // Within the stream a seek is taken.
        try player.seek(to: .seconds(known / 2))
        player.stop()
        #expect(player.state == .stopped(.user))
        #expect(try await player.waitUntilFinished() == .stopped(.user))
    }

    @Test func aStopBeforePlayReadsStoppedAtOnce() async throws {
        let player = AudioStreamer(url: Self.fixture, configuration: Self.unpaced)
        #expect(player.state == .initialized)
        player.stop()
        #expect(player.state == .stopped(.user))
        var events: [AudioStreamerEvent] = []
        for await event in player.events { events.append(event) }
        #expect(events == [.stateChanged(.stopped(.user))])
    }

    /// Cancelling the Task that awaits the end stops the player (paused meanwhile: it cannot
    /// end first, however late the task runs).
    @Test func cancellingTheAwaitingTaskStopsThePlayer() async throws {
        let player = AudioStreamer(url: Self.fixture, configuration: Self.unpaced)
        player.play()
        player.pause()
        let waiting = Task { try await player.waitUntilFinished() }
        waiting.cancel()
        let result = await waiting.result
        if case .failure(let error as AudioStreamerError) = result {
            #expect(error.code == .cancelled)
        } else {
            Issue.record("\(result)")
        }
        #expect(player.state == .stopped(.user))
    }
}
