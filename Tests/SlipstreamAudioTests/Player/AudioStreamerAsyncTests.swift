import Dispatch
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// The player as Swift concurrency meets it: several readers of its events, awaiting its end,
/// cancelling the task that awaits, seeking by `Duration`.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct AudioStreamerAsyncTests {
    static func states(_ events: [AudioStreamerEvent]) -> [AudioStreamerState] {
        events.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
    }

    @Test func twoReadersEachGetEveryStateChange() async throws {
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: .silent)
        let readers = (0..<2).map { _ in
            Task {
                var events: [AudioStreamerEvent] = []; for await event in player.events { events.append(event) }; return events
            }
        }
        player.play()
        let first = await readers[0].value, second = await readers[1].value
        // (A loaded machine may add underruns: buffering, playing.)
        #expect(Self.states(first).prefix(3) == [.waitingForData, .waitingForOutput, .playing])
        #expect(Self.states(first).last == .done)
        #expect(Self.states(second) == Self.states(first))
        #expect(
            first.filter { if case .progress = $0 { false } else { true } }
                == second.filter { if case .progress = $0 { false } else { true } })
    }

    /// A reader that is cancelled ends alone (after the events already waiting for it, without
    /// waiting for more: the player is paused meanwhile): the other reads on to the end, and the
    /// player plays on.
    @Test func cancellingOneReaderLeavesTheOther() async throws {
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: .silent)
        player.play()
        player.pause()
        let staying = Task {
            var events: [AudioStreamerEvent] = []; for await event in player.events { events.append(event) }; return events
        }
        let leaving = Task {
            var count = 0
            for await _ in player.events {
                count += 1
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return count
        }
        #expect(await leaving.value >= 1)
        player.play()
        let events = await staying.value
        #expect(Self.states(events).first == .waitingForData)
        #expect(Self.states(events).contains(.paused))
        #expect(Self.states(events).last == .done)
        #expect(player.state == .done)
    }

    /// The final state is the last event; the last progress (where the end was heard) just before it.
    @Test func theFinalStateIsTheLastEvent() async throws {
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: .silent)
        player.play()
        var events: [AudioStreamerEvent] = []
        for await event in player.events { events.append(event) }
        #expect(events.last == .stateChanged(.done))
        guard case .progress(let last)? = events.dropLast().last else {
            Issue.record("no progress before the end: \(events.suffix(3))")
            return
        }
        #expect(abs(last.position - (last.duration ?? 0)) < 0.05, "\(last)")
    }

    /// A seek past the duration the player knows is refused, and nothing moves; `stop()` reads
    /// stopped when it returns.
    @Test func aSeekPastTheEndIsRefused() async throws {
        let output = HoldingOutput()
        defer { output.release() }
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { output }
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: configuration)
        player.play()
        var duration: Double?
        for await case .properties(let properties) in player.events where properties.duration != nil {
            duration = properties.duration
            break
        }
        let known = try #require(duration)
        #expect {
            try player.seek(to: known + 440)
        } throws: { ($0 as? AudioStreamerError)?.code == .seek }
        try player.seek(to: known / 2)
        player.stop()
        #expect(player.state == .stopped(.user))
    }

    @Test func awaitingTheEndReturnsDone() async throws {
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-vbr-v0.mp3"), configuration: .silent)
        player.play()
        #expect(try await player.waitUntilFinished() == .done)
        // Again, after the end: the end is in the history.
        #expect(try await player.waitUntilFinished() == .done)
    }

    @Test func awaitingTheEndThrowsTheStopError() async throws {
        let player = AudioStreamer(url: try TestNginx.url("no-such-file.mp3"), configuration: .silent)
        player.play()
        do {
            try await player.waitUntilFinished()
            Issue.record("a missing file played")
        } catch {
            #expect(error.code == .httpStatus)
            #expect(error.status == 404)
            #expect(error.url == (try TestNginx.url("no-such-file.mp3")))
        }
    }

    @Test func aStopEndsTheWaitWithoutAnError() async throws {
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { NullOutput(paced: true) }
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: configuration)
        player.delegate = StopWhenPlaying()
        player.play()
        #expect(try await player.waitUntilFinished() == .stopped(.user))
    }

    /// Cancelling the task that awaits the end stops the player (here once it plays: the
    /// delegate cancels the task, on the player's queue; the output holds the second block
    /// until the test is over, so the stream cannot end first however slow the machine).
    @Test func cancellingTheAwaitingTaskStopsThePlayer() async throws {
        let output = HoldingOutput()
        defer { output.release() }
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { output }
        let player = AudioStreamer(url: try AudioFixtures.served("mp3-cbr128.mp3"), configuration: configuration)
        let canceller = CancelWhenPlaying()
        player.delegate = canceller
        let waiting = Task {
            player.play()
            return try await player.waitUntilFinished()
        }
        canceller.task.withLock { $0 = waiting }
        let result = await waiting.result
        #expect((result.failure as? AudioStreamerError)?.code == .cancelled, "\(result)")
        // Stopped as by `stop()`: the events end with it.
        var last: AudioStreamerState?
        for await case .stateChanged(let state) in player.events { last = state }
        #expect(last == .stopped(.user))
    }

    /// A start time and a seek given as `Duration`s land on the exact sample, as seconds do.
    @Test func timesAsDurationsLandOnTheExactSample() async throws {
        let name = "mp3-cbr128.mp3"
        let reference = try await ReferenceDecoder.mpg123(PlayerFiles.fixture(name))
        let target = Int(1.5 * 44100) * 4
        // A start time.
        let started = RecordingOutput(NullOutput(paced: false))
        var configuration = AudioStreamerConfiguration.silent
        configuration.output = { started }
        configuration.startTime = .milliseconds(1500)
        let player = AudioStreamer(url: try PlayerFiles.served(name), configuration: configuration)
        player.play()
        #expect(try await player.waitUntilFinished() == .done)
        #expect(started.segments.joined().elementsEqual(reference[target...]))
        // A seek before `play()` sets where playing starts.
        let sought = RecordingOutput(NullOutput(paced: false))
        configuration.output = { sought }
        configuration.startTime = nil
        let second = AudioStreamer(url: try PlayerFiles.served(name), configuration: configuration)
        try second.seek(to: .milliseconds(1500))
        second.play()
        #expect(try await second.waitUntilFinished() == .done)
        #expect(sought.segments.joined().elementsEqual(reference[target...]))
        // After the end nothing can be sought.
        #expect(throws: AudioStreamerError.self) { try second.seek(to: .seconds(1)) }
    }
}

/// Cancels a task as soon as the player plays (on the player's queue).
final class CancelWhenPlaying: AudioStreamerDelegate {
    let task = Mutex<Task<AudioStreamerState, any Error>?>(nil)
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent) {
        if event == .stateChanged(.playing) { task.withLock { $0 }?.cancel() }
    }
}

/// A null output that takes the first block, then holds every later write until released (or
/// closed): a player writing to it cannot reach the end of its stream before the test allows.
final class HoldingOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: `inner` is used by the playback thread alone; the gate is a semaphore.
    private let inner = NullOutput(paced: false)
    private let gate = DispatchSemaphore(value: 0)
    private let writes = Mutex(0)

    /// Lets held and later writes through.
    func release() { gate.signal() }

    func open(_ format: PCMFormat) throws(AudioOutputError) { try inner.open(format) }
    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        let count = writes.withLock {
            $0 += 1; return $0
        }
        if count == 2 {
            gate.wait()
            gate.signal()
        }
        try inner.write(frames)
    }
    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) { try inner.setPaused(paused) }
    func flush() throws(AudioOutputError) { try inner.flush() }
    func drain() throws(AudioOutputError) { try inner.drain() }
    func close() {
        release()
        inner.close()
    }
}
