import CAllocationCounter
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Decoding a packet allocates nothing once the decoder and its PCMBuffer have warmed up.
@Suite(.serialized, .enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct DecoderAllocationTests {
    @Test(
        arguments: [
            "mp3-vbr-v0.mp3", "mp3-mpeg2-24000-vbr.mp3", "mp3-freeformat400.mp3", "mp2-192k.mp2",
            "aac-lc-128k.aac", "wav-s24-extensible.wav", "flac-16-seektable.flac", "flac-24-mono.flac",
        ], [PCMFormat.SampleType.signed16, .float32])
    func steadyStateDecodingAllocatesNothing(_ name: String, _ sampleType: PCMFormat.SampleType) throws {
        let stream = try ParsedStream(AudioFixtures.bytes(name))
        let decoder = try AudioDecoders.make(for: stream.format, sampleType: sampleType)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        let warmUp = min(20, stream.packets.count / 2)
        func decode(_ range: Range<Int>) throws {
            for i in range {
                try stream.contents[i].withUnsafeBytes { _ = try decoder.decode($0, packet: stream.packets[i], into: buffer) }
                buffer.removeAll()
            }
        }
        try decode(0..<warmUp)
        let before = slipstream_thread_allocation_count()
        try decode(warmUp..<stream.packets.count)
        let allocations = slipstream_thread_allocation_count() - before
        #expect(allocations == 0, "\(allocations) allocations over \(stream.packets.count - warmUp) packets")
    }

    /// The counter sees Swift's allocations and those inside the C libraries (libmpg123 makes
    /// its decoder on the heap), so a zero above means something.
    @Test func theCounterSeesSwiftAndCAllocations() throws {
        var before = slipstream_thread_allocation_count()
        let array = [Int](repeating: 1, count: 1000)
        #expect(slipstream_thread_allocation_count() > before)
        #expect(array.count == 1000)
        let format = AudioFormat(codec: .mp3, codecDescription: "MPEG-1 Layer III", sampleRate: 44100, channels: 2, framesPerPacket: 1152)
        let decoder = try MP3Decoder(format: format)
        decoder.reset()
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)
        let packet = AudioPacket(offset: 0, size: 417, frameCount: 1152, startFrame: 0, startTime: 0)
        let buffer = PCMBuffer(format: decoder.outputFormat)
        before = slipstream_thread_allocation_count()
        try frame.withUnsafeBytes { _ = try decoder.decode($0, packet: packet, into: buffer) }
        #expect(slipstream_thread_allocation_count() - before > 5, "mpg123_new after reset() allocates in C")
    }
}

/// The playback thread allocates nothing per packet either: between one write to the output and
/// the next it takes packets from the queue, decodes, trims, scales and gathers them, and
/// publishes the clock.
@Suite(.enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct PlaybackAllocationTests {
    @Test(arguments: [1.0, 0.5])
    func playingAPacketAllocatesNothing(volume: Double) async throws {
        let output = AllocationCountingOutput()
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        configuration.volume = volume
        // The whole stream is queued before playing starts: the queue never runs dry and the
        // producer is never paused nor let go (telling the state machine of either allocates,
        // as a dispatch does).
        configuration.bufferLimit = .unlimited
        configuration.startThreshold = .seconds(3600)
        let player = AudioStreamer(url: try AudioFixtures.path("mp3-vbr-v0.mp3"), configuration: configuration)
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done)
        let counts = output.allocationsBetweenWrites
        // A write takes a few packets (PlaybackLoop.batchFrames): about 30 for this file.
        #expect(counts.count > 20)
        // The first writes open the output and tell the state machine the output started.
        let steady = counts.dropFirst(5)
        #expect(steady.allSatisfy { $0 == 0 }, "allocations between writes: \(Array(steady))")
    }

    /// Resampling for an output that keeps one format allocates nothing per packet either,
    /// once the new decoder, the converter and libsoxr's buffers have grown to the packets.
    @Test func convertingAPacketAllocatesNothing() async throws {
        let output = AllocationCountingOutput(keepsFirstFormat: true)
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        configuration.bufferLimit = .unlimited
        configuration.startThreshold = .seconds(3600)
        // 3 s at 44.1 kHz stereo, then 3 s at 16 kHz mono (86 packets), resampled.
        let player = AudioStreamer(url: try AudioFixtures.path("mp3-format-change.mp3"), configuration: configuration)
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done)
        let counts = output.allocationsBetweenWrites
        let change = try #require(output.writesBeforeRefusal)
        // A write takes a few packets (PlaybackLoop.batchFrames): 12 after the change.
        #expect(counts.count > change + 10)
        // The first writes after the change grow the converter's and libsoxr's buffers; the
        // last is the resampler's tail, flushed at the end of the stream.
        let steady = counts.dropFirst(change + 4).dropLast()
        #expect(steady.allSatisfy { $0 == 0 }, "allocations between writes after the change: \(Array(steady))")
    }
}

/// A null output that notes, at each write, how many heap allocations the writing thread made
/// since its last write returned (into room allocated up front, so that noting allocates nothing).
final class AllocationCountingOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: the playback thread alone writes; the test reads after the player is done.
    private let inner = NullOutput(paced: false)
    private let counts = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 4096)
    private var written = 0
    private var afterLastWrite: UInt?
    private let keepsFirstFormat: Bool
    private var format: PCMFormat?
    /// The writes before the output refused a second format (keeping its first).
    private(set) var writesBeforeRefusal: Int?

    /// An output that takes any format, or, `keepsFirstFormat`, refuses any but its first (as
    /// a WAV file does).
    init(keepsFirstFormat: Bool = false) {
        self.keepsFirstFormat = keepsFirstFormat
    }

    deinit { counts.deallocate() }

    /// Allocations between each write and the one before it.
    var allocationsBetweenWrites: [UInt] { Array(counts[0..<written]) }

    func open(_ format: PCMFormat) throws(AudioOutputError) {
        if keepsFirstFormat, let kept = self.format, kept != format {
            writesBeforeRefusal = written
            throw AudioOutputError(.formatNotSupported, "keeps \(kept)")
        }
        self.format = format
        try inner.open(format)
    }

    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        let now = slipstream_thread_allocation_count()
        if let afterLastWrite, written < counts.count {
            counts[written] = now - afterLastWrite
            written += 1
        }
        try inner.write(frames)
        afterLastWrite = slipstream_thread_allocation_count()
    }

    func framesPlayed() -> Int64 { inner.framesPlayed() }
    func setPaused(_ paused: Bool) throws(AudioOutputError) { try inner.setPaused(paused) }
    func flush() throws(AudioOutputError) { try inner.flush() }
    func drain() throws(AudioOutputError) { try inner.drain() }
    func close() { inner.close() }
}
