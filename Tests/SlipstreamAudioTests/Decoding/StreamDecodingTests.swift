import Foundation
import Testing
import TestSupport
@testable import SlipstreamAudio

/// StreamDecoding: whole files through parser, decoder and trim; and the decode-speed check.
@Suite(.serialized, .enabled(if: !AudioFixtures.references.isEmpty, "SLIPSTREAM_TEST_AUDIO is not set"))
struct StreamDecodingTests {
    /// Every fixture decodes to the frame count its reference decoder gave (mpg123 for MPEG
    /// audio, ffmpeg for ADTS, the file for WAV), and to the samples of the packet-by-packet
    /// decode the decoder tests compare with those decoders.
    @Test(arguments: AudioFixtures.references)
    func everyFixtureDecodesToItsReferenceLength(_ reference: AudioFixtures.Reference) throws {
        let bytes = try AudioFixtures.bytes(reference.name)
        var pcm: [UInt8] = []
        let summary = try bytes.withUnsafeBytes { raw in
            try StreamDecoding.decode(raw, chunkSize: 5000) { pcm += $0.bytes }
        }
        #expect(summary.frameCount == reference.samples)
        #expect(summary.format == PCMFormat(sampleRate: reference.sampleRate, channels: reference.channels))
        let same = pcm == (try ParsedStream(bytes).decodeTrimmed())
        #expect(same)
    }

    @Test func notAudioIsTheParsersError() throws {
        let html = Array("<!DOCTYPE html><html><body>not audio</body></html>".utf8)
        #expect(throws: AudioParserError.self) {
            try html.withUnsafeBytes { try StreamDecoding.decode($0) { _ in } }
        }
    }

    /// Decode speed, when `SLIPSTREAM_DECODE_BENCH` names a file: decodes it whole (as fast as
    /// possible, output dropped) and `mpg123 -t` (decode, no output) on it, and prints both as x
    /// real time. Run it in release: `SLIPSTREAM_DECODE_BENCH=FILE swift test -c release
    /// -Xswiftc -enable-testing --filter decodeSpeed`.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["SLIPSTREAM_DECODE_BENCH"] != nil,
            "a benchmark: SLIPSTREAM_DECODE_BENCH=FILE runs it (see its comment)"))
    func decodeSpeed() throws {
        let path = try #require(ProcessInfo.processInfo.environment["SLIPSTREAM_DECODE_BENCH"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var best = Double.infinity
        var summary: StreamDecoding.Summary?
        for _ in 0..<3 {
            let start = ContinuousClock.now
            summary = try bytes.withUnsafeBytes { try StreamDecoding.decode($0) { _ in } }
            best = min(best, (ContinuousClock.now - start) / .seconds(1))
        }
        let result = try #require(summary)
        let format = try #require(result.format)
        let seconds = Double(result.frameCount) / Double(format.sampleRate)
        var mpg123 = Double.infinity
        for _ in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["mpg123", "-q", "-t", path]
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            mpg123 = min(mpg123, (ContinuousClock.now - start) / .seconds(1))
        }
        print(
            String(
                format: "decode speed: %.1f s of audio; slipstream %.3f s (%.0fx real time), mpg123 -t %.3f s (%.0fx), ratio %.2f",
                seconds, best, seconds / best, mpg123, seconds / mpg123, mpg123 / best))
    }
}
