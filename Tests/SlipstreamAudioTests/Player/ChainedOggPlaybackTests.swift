import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// A chained Ogg stream (an Icecast Ogg mount sends each song as a new link) whose links share
/// their PCM format: the player writes the next link on to the open output, without letting it
/// play out and opening it again (an audible gap at every song), and the audio is the
/// reference decoder's.
@Suite(.enabled("sox, oggenc and opusenc make the fixtures") { await OggFixtures.made() }) struct ChainedOggPlaybackTests {
    @Test(arguments: ["vorbis-chained.ogg", "opus-chained.opus"])
    func linksOfTheSamePCMPlayOnWithoutAGap(_ name: String) async throws {
        let output = OpenCountingOutput()
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        let player = AudioStreamer(url: try OggFixtures.path(name), configuration: configuration)
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done)
        #expect(output.counts.opens == 1)
        // Once, at the end of the stream: none between the links.
        #expect(output.counts.drains == 1)
        let reference = try await OggFixtures.reference(name)
        let written = output.written
        #expect(written.count == reference.count, "\(written.count / 4) vs \(reference.count / 4) frames")
        #expect(largestStep(written, reference) <= 2)
    }
}

/// An output that plays nowhere, keeps what was written and counts its openings and drains.
final class OpenCountingOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: `inner` is used by the playback thread alone; the rest is behind a Mutex.
    private let inner = NullOutput(paced: false)
    private let state = Mutex<(opens: Int, drains: Int, bytes: [UInt8])>((0, 0, []))

    var counts: (opens: Int, drains: Int) { state.withLock { ($0.opens, $0.drains) } }
    var written: [UInt8] { state.withLock { $0.bytes } }

    func open(_ format: PCMFormat) throws(AudioOutputError) {
        state.withLock { $0.opens += 1 }
        try inner.open(format)
    }
    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        state.withLock { $0.bytes += frames }
        try inner.write(frames)
    }
    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) { try inner.setPaused(paused) }
    func flush() throws(AudioOutputError) { try inner.flush() }
    func drain() throws(AudioOutputError) {
        state.withLock { $0.drains += 1 }
        try inner.drain()
    }
    func close() { inner.close() }
}
