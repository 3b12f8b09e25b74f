import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// An output for the player tests: passes everything to a real output (WAV file or null) and
/// keeps what was written since each flush, so a test can look at the audio after a seek.
final class RecordingOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: `segments` is behind a Mutex; `inner` is used only by the playback thread.
    private let inner: any AudioOutput
    private let recorded = Mutex<[[UInt8]]>([[]])

    init(_ inner: any AudioOutput) { self.inner = inner }

    /// The bytes written between flushes, oldest first (the last is what followed the last seek).
    var segments: [[UInt8]] { recorded.withLock { $0 } }

    func open(_ format: PCMFormat) throws(AudioOutputError) { try inner.open(format) }
    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        recorded.withLock { $0[$0.count - 1] += frames }
        try inner.write(frames)
    }
    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) { try inner.setPaused(paused) }
    func flush() throws(AudioOutputError) {
        recorded.withLock { $0.append([]) }
        try inner.flush()
    }
    func drain() throws(AudioOutputError) { try inner.drain() }
    func close() { inner.close() }
    var playsInRealTime: Bool { inner.playsInRealTime }
}

/// An output whose `open` waits until the test lets it (a device that is slow to open), and
/// that keeps every `setPaused` it was told.
final class OpeningGateOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: `inner` is used only by the playback thread; the rest is behind Mutexes.
    private let inner: any AudioOutput
    private let gate = DispatchSemaphore(value: 0)
    private let opening = Mutex(false)
    private let told = Mutex<[Bool]>([])

    init(_ inner: any AudioOutput) { self.inner = inner }

    /// Whether `open` is waiting.
    var isOpening: Bool { opening.withLock { $0 } }
    /// What `setPaused` was told, in order.
    var pauses: [Bool] { told.withLock { $0 } }
    /// Lets `open` finish.
    func letOpen() { gate.signal() }

    func open(_ format: PCMFormat) throws(AudioOutputError) {
        opening.withLock { $0 = true }
        gate.wait()
        opening.withLock { $0 = false }
        try inner.open(format)
    }
    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) { try inner.write(frames) }
    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) {
        told.withLock { $0.append(paused) }
        try inner.setPaused(paused)
    }
    func flush() throws(AudioOutputError) { try inner.flush() }
    func drain() throws(AudioOutputError) { try inner.drain() }
    func close() {
        gate.signal()
        inner.close()
    }
}

/// Runs an `AudioStreamer` and collects its events until it is done or stopped.
struct PlayerRun {
    var events: [AudioStreamerEvent] = []
    var finalState: AudioStreamerState? {
        events.reversed().lazy.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }.first
    }
    var reconnects: Int { events.filter { if case .reconnecting = $0 { true } else { false } }.count }
    var bufferingStarts: Int { events.filter { $0 == .bufferingStarted }.count }

    /// The error the streamer stopped with, if it did.
    var error: AudioStreamerError? {
        if case .stopped(.error(let error)) = finalState { return error }
        return nil
    }

    /// The player's events did not end within a minute of `stop()`.
    struct DidNotStop: Error, CustomStringConvertible {
        var events: [AudioStreamerEvent]
        var description: String { "the player did not end within 60 s of stop(); its last events: \(events.suffix(12))" }
    }

    /// Collects `player`'s events (after `start` ran) until the sequence ends; stops the player
    /// after `limit` seconds so a broken test cannot hang the suite, and throws `DidNotStop`
    /// when its events go on for a minute after that.
    static func collect(_ player: AudioStreamer, limit: Double = 120, start: (AudioStreamer) async throws -> Void = { $0.play() })
        async throws -> PlayerRun
    {
        let collecting = Task {
            var run = PlayerRun()
            // (Ends when the task is cancelled, too.)
            for await event in player.events { run.events.append(event) }
            return run
        }
        let gaveUp = Atomic(false)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(limit))
            player.stop()
            try await Task.sleep(for: .seconds(60))
            gaveUp.store(true, ordering: .sequentiallyConsistent)
            collecting.cancel()
        }
        defer { watchdog.cancel() }
        do {
            try await start(player)
        } catch {
            player.stop()
            throw error
        }
        let run = await collecting.value
        if gaveUp.load(ordering: .sequentiallyConsistent) { throw DidNotStop(events: run.events) }
        return run
    }

    /// Plays `source` with `configure`d settings (from `.silent`: as fast as possible, no
    /// sound) to the end.
    static func play(_ source: String, configure: (inout AudioStreamerConfiguration) -> Void = { _ in }) async throws -> PlayerRun {
        var configuration = AudioStreamerConfiguration.silent
        configure(&configuration)
        return try await collect(AudioStreamer(url: source, configuration: configuration))
    }

    /// A `wait` that gave up: where it was called.
    struct WaitedTooLong: Error {
        var at: String
    }

    /// The looks a wait takes at least before it gives up, however long they took.
    static let minimumLooks = 10

    /// Waits (looking every `interval`) until `condition` holds; gives up after `limit`
    /// seconds, a bound no working run comes near, so a broken test fails instead of hanging,
    /// but not before it has looked `minimumLooks` times: in a full parallel run the
    /// concurrency pool can be so busy that a sleep of a second lasts half a minute (seen: two
    /// looks in a minute).
    static func wait(
        limit: Double = 60, every interval: Duration = .milliseconds(10), file: String = #fileID, line: Int = #line,
        until condition: () -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(limit)
        var looks = 1
        while !condition() {
            guard Date() < deadline || looks < minimumLooks else { throw WaitedTooLong(at: "\(file):\(line)") }
            try await Task.sleep(for: interval)
            looks += 1
        }
    }
}

/// Audio files for the player tests: fixtures served by nginx, and longer files made once.
enum PlayerFiles {
    /// Fixture `name` served by nginx; its URL.
    static func served(_ name: String) throws -> String { try AudioFixtures.served(name) }

    /// The fixture's path.
    static func fixture(_ name: String) throws -> String { try AudioFixtures.path(name) }

    private static let makeLock = NSLock()

    /// A `seconds`-long MP3 made by lame with `options` (e.g. ["-V", "2"]), made once per test
    /// run in nginx's folder (off the concurrency pool); its path.
    static func long(_ seconds: Int, _ options: [String]) async throws -> String {
        try await offPool { try makeLong(seconds, options) }
    }

    private static func makeLong(_ seconds: Int, _ options: [String]) throws -> String {
        makeLock.lock()
        defer { makeLock.unlock() }
        let name = "long-\(seconds)s" + options.joined().replacingOccurrences(of: "-", with: "_") + ".mp3"
        let path = try TestNginx.filesFolder() + "/" + name
        if FileManager.default.fileExists(atPath: path) { return path }
        let wav = path + ".wav"
        try ExternalProgram.runBlocking([
            "sox", "-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "\(seconds)", "sine", "200-2000", "pinknoise",
            "gain", "-6",
        ])
        try ExternalProgram.runBlocking(["lame", "--quiet", "--noreplaygain"] + options + [wav, path + ".tmp"])
        try FileManager.default.removeItem(atPath: wav)
        try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
        return path
    }

    /// Where `frames` (interleaved s16 PCM, `channels` wide) first appears in `reference` within
    /// `window` frames of `around`; nil when it does not.
    static func locate(_ frames: ArraySlice<UInt8>, in reference: [UInt8], channels: Int, around: Int, window: Int) -> Int? {
        let width = 2 * channels
        let probe = Array(frames.prefix(1152 * width))
        guard !probe.isEmpty else { return nil }
        let lower = max(around - window, 0), upper = min(around + window, reference.count / width - probe.count / width)
        guard lower <= upper else { return nil }
        for frame in lower...upper {
            let start = frame * width
            if reference[start] == probe[0], reference[start..<start + probe.count].elementsEqual(probe) { return frame }
        }
        return nil
    }
}

extension AudioStreamerConfiguration {
    /// The default configuration with no sound: a null output that plays as fast as possible.
    static var silent: AudioStreamerConfiguration {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { NullOutput(paced: false) }
        return configuration
    }
}
