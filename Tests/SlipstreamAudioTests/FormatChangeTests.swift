import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// A stream whose format changes in the middle (3 s at 44.1 kHz stereo, then 3 s at 16 kHz
/// mono, one file after the other): the playback side lets the first part play out, makes a
/// decoder for the second and opens the output again for its format; an output that keeps one
/// format (a WAV file) gets the second part converted to it.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct FormatChangeTests {
    static let name = "mp3-format-change.mp3"
    static let first = PCMFormat(sampleRate: 44100, channels: 2)
    static let second = PCMFormat(sampleRate: 16000, channels: 1)

    /// mpg123's decodes of the two parts: the first trimmed as its LAME tag says (the stream's
    /// gapless figures are the first file's), the second whole (trimming applies to the frames
    /// the first file's header counts, and no further).
    static func references() async throws -> (first: [UInt8], second: [UInt8]) {
        let first = try await offPool { try ReferenceDecoder.mpg123(AudioFixtures.path("mp3-cbr128.mp3")) }
        let second = try await offPool { try ReferenceDecoder.mpg123(AudioFixtures.path("mp3-mpeg2-16000-mono.mp3"), gapless: false) }
        return (first, second)
    }

    @Test func theOutputIsOpenedAgainForTheNewFormatAndBothPartsAreExact() async throws {
        let output = FormatRecordingOutput()
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        let player = AudioStreamer(url: try AudioFixtures.served(Self.name), configuration: configuration)
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done, "\(run.events)")
        let parts = output.parts
        #expect(parts.map(\.format) == [Self.first, Self.second])
        let (first, second) = try await Self.references()
        #expect(parts.first?.bytes.count == first.count && parts.first?.bytes.elementsEqual(first) == true)
        #expect(parts.last?.bytes.count == second.count && parts.last?.bytes.elementsEqual(second) == true)
        // The old part was played out before the output was opened again.
        #expect(output.drainsBeforeReopening == 1)
        // The clock went on across the change: the first part's 3 s, then the second's frames.
        let expected = 3 + Double(second.count / 2) / 16000
        #expect(abs(player.progress.position - expected) < 1e-6, "\(player.progress.position) vs \(expected)")
        // Both formats were told.
        let formats = run.events.compactMap { if case .properties(let p) = $0 { p.format?.sampleRate } else { nil } }
        #expect(formats.first == 44100 && formats.last == 16000)
    }

    @Test func aWAVFileKeepsItsFormatAndTheSecondPartIsConvertedToIt() async throws {
        let wav = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let run = try await PlayerRun.play(try AudioFixtures.served(Self.name)) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done, "\(run.events)")
        let played = try ReferenceDecoder.wavData(wav)
        let (first, second) = try await Self.references()
        #expect(played.count > first.count)
        #expect(played.prefix(first.count).elementsEqual(first))
        // The second part is mpg123's decode of the second file, converted as the player
        // converts: not silence, not noise.
        let decoded = PCMBuffer(format: Self.second)
        let room = decoded.reserve(second.count)
        second.withUnsafeBytes { room.copyMemory(from: $0) }
        decoded.commit(second.count)
        let converted = PCMConverter(from: Self.second, to: Self.first).convert(decoded)
        let rest = played[first.count...]
        #expect(rest.count == converted.bytes.count)
        #expect(rest.elementsEqual(converted.bytes))
        let loud = rest.withUnsafeBytes { $0.bindMemory(to: Int16.self).contains { abs(Int($0)) > 1000 } }
        #expect(loud)
    }
}

/// An output that plays nowhere but keeps what was written for each format it was opened with,
/// and counts the drains that came right before an opening for another format.
final class FormatRecordingOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: the playback thread alone calls it; the test reads after the player is done.
    struct Part {
        var format: PCMFormat
        var bytes: [UInt8] = []
    }

    private let inner = NullOutput(paced: false)
    private let state = Mutex<(parts: [Part], drains: Int, drained: Bool)>(([], 0, false))

    /// What was written, per format, in order.
    var parts: [Part] { state.withLock { $0.parts } }
    var drainsBeforeReopening: Int { state.withLock { $0.drains } }

    func open(_ format: PCMFormat) throws(AudioOutputError) {
        state.withLock { state in
            if state.parts.last?.format != format {
                if state.drained, !state.parts.isEmpty { state.drains += 1 }
                state.parts.append(Part(format: format))
            }
            state.drained = false
        }
        try inner.open(format)
    }

    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        state.withLock { state in
            state.parts[state.parts.count - 1].bytes += frames
            state.drained = false
        }
        try inner.write(frames)
    }

    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) { try inner.setPaused(paused) }
    func flush() throws(AudioOutputError) { try inner.flush() }

    func drain() throws(AudioOutputError) {
        state.withLock { $0.drained = true }
        try inner.drain()
    }

    func close() { inner.close() }
}
