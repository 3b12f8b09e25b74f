import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamAudio

/// Streams whose format changes in the middle (two files one after the other: MP3 44.1 kHz
/// stereo then 16 kHz mono, 44.1 then 48 kHz, mono then stereo, a station's two tagged MP3s
/// 44.1 kHz stereo then 22.05 kHz mono, ADTS AAC 44.1 kHz stereo then 48 kHz mono), served by nginx: the playback side lets the
/// first part play out, makes a decoder for the second and opens the output again for its
/// format; an output that keeps one format (a WAV file) gets the second part resampled to it.
@Suite(
    .enabled(
        if: AudioFixtures.directory != nil && (try? TestNginx.port()) != nil,
        "run with scripts/test.sh (nginx and the audio fixtures)"))
struct FormatChangeTests {
    /// A fixture joining two files of different formats.
    struct Join: Sendable, CustomStringConvertible {
        var name: String
        var first: PCMFormat
        var second: PCMFormat
        /// The fixtures joined.
        var parts: (String, String)

        var description: String { name }

        /// Each part decoded on its own: the first trimmed as its LAME tag says (the stream's
        /// gapless figures are the first file's), the second whole (trimming applies to the
        /// frames the first file's header counts, and no further; its own Info frame is no
        /// audio). MP3 by mpg123; AAC by the player's libfaad2 decoder (AACDecoderTests hold it
        /// against ffmpeg's; the two differ in the noise they make up for noise-coded bands).
        func references() async throws -> (first: [UInt8], second: [UInt8]) {
            let (a, b) = parts
            if name.hasSuffix(".aac") {
                return try await offPool {
                    (try ParsedStream(AudioFixtures.bytes(a)).decodeRaw(), try ParsedStream(AudioFixtures.bytes(b)).decodeRaw())
                }
            }
            return (
                try await ReferenceDecoder.mpg123(AudioFixtures.path(a)),
                try await ReferenceDecoder.mpg123(AudioFixtures.path(b), gapless: false)
            )
        }
    }

    static let joins = [
        Join(
            name: "mp3-format-change.mp3", first: PCMFormat(sampleRate: 44100, channels: 2),
            second: PCMFormat(sampleRate: 16000, channels: 1), parts: ("mp3-cbr128.mp3", "mp3-mpeg2-16000-mono.mp3")),
        Join(
            name: "mp3-format-change-station.mp3", first: PCMFormat(sampleRate: 44100, channels: 2),
            second: PCMFormat(sampleRate: 22050, channels: 1), parts: ("mp3-id3v2-lame.mp3", "mp3-mpeg2-22050-mono.mp3")),
        Join(
            name: "mp3-format-change-48k.mp3", first: PCMFormat(sampleRate: 44100, channels: 2),
            second: PCMFormat(sampleRate: 48000, channels: 2), parts: ("mp3-cbr128.mp3", "mp3-cbr192-48k.mp3")),
        Join(
            name: "mp3-format-change-mono-stereo.mp3", first: PCMFormat(sampleRate: 44100, channels: 1),
            second: PCMFormat(sampleRate: 44100, channels: 2), parts: ("mp3-mono64.mp3", "mp3-cbr128.mp3")),
        Join(
            name: "aac-format-change.aac", first: PCMFormat(sampleRate: 44100, channels: 2),
            second: PCMFormat(sampleRate: 48000, channels: 1), parts: ("aac-lc-128k.aac", "aac-lc-48000-mono.aac")),
    ]

    @Test(arguments: joins)
    func theOutputIsOpenedAgainForTheNewFormatAndBothPartsAreExact(_ join: Join) async throws {
        let output = FormatRecordingOutput()
        var configuration = AudioStreamerConfiguration()
        configuration.output = { output }
        let player = AudioStreamer(url: try AudioFixtures.served(join.name), configuration: configuration)
        let run = try await PlayerRun.collect(player)
        #expect(run.finalState == .done, "\(run.events)")
        let parts = output.parts
        #expect(parts.map(\.format) == [join.first, join.second])
        let (first, second) = try await join.references()
        let firstIsExact = parts.first?.bytes.count == first.count && parts.first?.bytes.elementsEqual(first) == true
        let secondIsExact = parts.last?.bytes.count == second.count && parts.last?.bytes.elementsEqual(second) == true
        #expect(firstIsExact && secondIsExact, "first part exact: \(firstIsExact), second: \(secondIsExact)")
        // The old part was played out before the output was opened again.
        #expect(output.drainsBeforeReopening == 1)
        // The clock went on across the change: the first part's time, then the second's.
        let expected =
            Double(first.count / join.first.bytesPerFrame) / Double(join.first.sampleRate)
            + Double(second.count / join.second.bytesPerFrame) / Double(join.second.sampleRate)
        #expect(abs(player.progress.position - expected) < 1e-6, "\(player.progress.position) vs \(expected)")
        // Both formats were told.
        let formats = run.events.compactMap { if case .properties(let p) = $0 { p.format?.sampleRate } else { nil } }
        #expect(formats.first == join.first.sampleRate && formats.last == join.second.sampleRate)
    }

    /// A WAV file holds one format: the second part is resampled (libsoxr) and copied to both
    /// channels. Held against ffmpeg's own resampler on the reference decode of the second part
    /// (the two resamplers differ, so by signal-to-noise ratio), with every frame there (the
    /// resampler's tail flushed at the end), and the join neither silent nor noisy: around it,
    /// the level of every 10 ms is the reference's.
    @Test(arguments: joins)
    func aWAVFileKeepsItsFormatAndTheSecondPartIsResampledToIt(_ join: Join) async throws {
        let wav = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let run = try await PlayerRun.play(try AudioFixtures.served(join.name)) { $0.output = { WAVFileOutput(path: wav) } }
        #expect(run.finalState == .done, "\(run.events)")
        let channels = join.first.channels, secondChannels = join.second.channels
        let played = PCMSamples(try ReferenceDecoder.wavData(wav), channels: channels)
        let (firstBytes, secondBytes) = try await join.references()
        let first = PCMSamples(firstBytes, channels: channels)
        #expect(played.frames > first.frames)
        let firstIsExact = played.samples.prefix(first.samples.count).elementsEqual(first.samples)
        #expect(firstIsExact)

        let rate = join.first.sampleRate, secondRate = join.second.sampleRate
        let secondFrames = secondBytes.count / (2 * secondChannels)
        let resampled = try await ReferenceDecoder.ffmpegResampled(secondBytes, rate: secondRate, channels: secondChannels, to: rate)
        let reference = PCMSamples(
            firstBytes + PCMSamples(resampled, channels: secondChannels).mixed(to: channels).bytes, channels: channels)
        // Every frame: the second part's, at the output's rate (libsoxr rounds the length to
        // a whole frame: up when it raises the rate, down when it lowers it).
        let exactLength = Double(secondFrames * rate) / Double(secondRate)
        #expect(abs(Double(played.frames - first.frames) - exactLength) < 1, "\(played.frames - first.frames) frames for \(exactLength)")
        if secondChannels == 1 {
            let rest = played.frames(first.frames..<played.frames)
            #expect(rest.isUpmixedMono, "every channel carries the mono part")
        }
        let common = min(played.frames, reference.frames)
        let snr = played.frames(first.frames..<common).signalToNoise(against: reference.frames(first.frames..<common))
        #expect(snr > 45, "the second part against ffmpeg's resampling: \(snr) dB")
        // 50 ms either side of the join.
        let window = rate / 100
        let around = (first.frames - 5 * window)..<(first.frames + 5 * window)
        let boundary = played.frames(around).signalToNoise(against: reference.frames(around))
        #expect(boundary > 45, "around the join: \(boundary) dB")
        for start in stride(from: around.lowerBound, to: around.upperBound, by: window) {
            let ours = played.frames(start..<start + window).level, theirs = reference.frames(start..<start + window).level
            #expect(theirs < -60 || abs(ours - theirs) < 1, "10 ms at frame \(start): \(ours) dBFS, the reference \(theirs) dBFS")
        }
    }

    /// Back and forth (44.1 kHz stereo, 16 kHz mono, 44.1 kHz stereo) into a WAV file: the
    /// resampler's tail is written before the format changes back (every frame of the middle
    /// part is there), and the third part, in the file's own format again, is exact.
    @Test func aFormatThatComesBackIsWrittenAsItIsAfterTheWholeMiddlePart() async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let stream = folder + "/back-and-forth.mp3"
        let bytes =
            try AudioFixtures.bytes("mp3-cbr128.mp3") + AudioFixtures.bytes("mp3-mpeg2-16000-mono.mp3")
            + AudioFixtures.bytes("mp3-cbr128.mp3")
        try Data(bytes).write(to: URL(fileURLWithPath: stream))
        let run = try await PlayerRun.play(stream) { $0.output = { WAVFileOutput(path: folder + "/out.wav") } }
        #expect(run.finalState == .done, "\(run.events)")
        let played = try ReferenceDecoder.wavData(folder + "/out.wav")
        let first = try await ReferenceDecoder.mpg123(AudioFixtures.path("mp3-cbr128.mp3"))
        let middle = try await ReferenceDecoder.mpg123(AudioFixtures.path("mp3-mpeg2-16000-mono.mp3"), gapless: false)
        let last = try await ReferenceDecoder.mpg123(AudioFixtures.path("mp3-cbr128.mp3"), gapless: false)
        let middleFrames = (middle.count / 2 * 44100 + 15999) / 16000
        #expect(played.count == first.count + middleFrames * 4 + last.count)
        let (firstIsExact, lastIsExact) = (played.prefix(first.count).elementsEqual(first), played.suffix(last.count).elementsEqual(last))
        #expect(firstIsExact && lastIsExact, "first part exact: \(firstIsExact), last: \(lastIsExact)")
    }
}

/// Native 16-bit interleaved samples, for comparing audio.
struct PCMSamples {
    var samples: [Int16]
    var channels: Int

    init(_ bytes: [UInt8], channels: Int) {
        samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        self.channels = channels
    }

    init(samples: [Int16], channels: Int) {
        self.samples = samples
        self.channels = channels
    }

    var frames: Int { samples.count / channels }
    var bytes: [UInt8] { samples.withUnsafeBytes { Array($0) } }

    /// Frames `range`.
    func frames(_ range: Range<Int>) -> PCMSamples {
        PCMSamples(samples: Array(samples[(range.lowerBound * channels)..<(range.upperBound * channels)]), channels: channels)
    }

    /// Mono copied to `count` channels.
    func upmixed(to count: Int) -> PCMSamples {
        PCMSamples(samples: samples.flatMap { [Int16](repeating: $0, count: count) }, channels: count)
    }

    /// The frames in `count` channels: mono copied to each, more channels averaged to mono,
    /// the same count as it is.
    func mixed(to count: Int) -> PCMSamples {
        if channels == count { return self }
        if channels == 1 { return upmixed(to: count) }
        precondition(count == 1, "only mono and to mono")
        let averaged = stride(from: 0, to: samples.count, by: channels).map { i in
            Int16(samples[i..<i + channels].reduce(0) { $0 + Int($1) } / channels)
        }
        return PCMSamples(samples: averaged, channels: 1)
    }

    /// Whether every frame's channels are equal.
    var isUpmixedMono: Bool {
        stride(from: 0, to: samples.count, by: channels).allSatisfy { i in samples[i..<i + channels].allSatisfy { $0 == samples[i] } }
    }

    /// The RMS level, in dB relative to full scale.
    var level: Double {
        let power = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))
        return 10 * log10(max(power, 1e-3) / (32768 * 32768))
    }

    /// The ratio of `reference`'s power to that of the difference from it, in dB.
    func signalToNoise(against reference: PCMSamples) -> Double {
        var signal = 0.0, noise = 0.0
        for (a, b) in zip(samples, reference.samples) {
            signal += Double(b) * Double(b)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        return 10 * log10(signal / max(noise, 1e-9))
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

    private let inner: NullOutput
    private let state = Mutex<(parts: [Part], drains: Int, drained: Bool)>(([], 0, false))

    /// An output that takes the audio as fast as it comes, or, `paced`, in real time.
    init(paced: Bool = false) {
        inner = NullOutput(paced: paced)
    }

    /// What was written, per format, in order.
    var parts: [Part] { state.withLock { $0.parts } }
    var drainsBeforeReopening: Int { state.withLock { $0.drains } }
    /// The formats it was opened with so far (one after the other).
    var formatCount: Int { state.withLock { $0.parts.count } }

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
