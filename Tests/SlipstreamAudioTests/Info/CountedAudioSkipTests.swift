import Foundation
import Testing
import TestSupport

@testable import SlipstreamAudio

/// `skipAudioCountedBySize()`: the totals of PCM audio, of MP4's samples and of CAF's AAC packets
/// counted from sizes are those a parse of every byte gives (or the same error), for whole files
/// and files cut short, and `info --exact` reads little of a large one.
@Suite(.enabled(if: AudioFixtures.directory != nil, "SLIPSTREAM_TEST_AUDIO is not set"))
struct CountedAudioSkipTests {
    static let fixtures =
        AudioFixtures.references.filter { $0.kind == "wav" }.map(\.name) + AIFFCAFTests.integerFixtures + AIFFCAFTests.floatFixtures
        + ["mp4-aac-moov-end.m4a", "mp4-aac-faststart.m4a", "mp4-aac-chapters.m4b", "mp4-aac-chapters-faststart.m4b"]
        + CAFAACTests.fixtures

    /// Parses `bytes` whole, or jumping over what it would skip and over the audio after its
    /// first `head` bytes (as `info --exact` does); returns the final properties (or the error)
    /// and the bytes fed.
    static func parse(_ bytes: [UInt8], skippingAfter head: Int?) -> (Result<AudioStreamProperties, AudioParserError>, Int) {
        var parser = AudioStreamParser(hints: AudioStreamHints(totalByteCount: Int64(bytes.count)))
        var fed = 0
        var start = 0
        var sink = DiscardingSink()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(AudioParserError) in
                try parser.parse(wholeStream: raw, chunkSize: { start == 0 ? head ?? raw.count : 4096 }, into: &sink) { parser, end in
                    fed += end - start
                    if head != nil {
                        parser.skipUnread()
                        parser.skipAudioCountedBySize()
                    }
                    start = Int(min(parser.nextByteOffset, Int64(raw.count)))
                    return true
                }
                return parser.properties
            }
        }
        return (result, fed)
    }

    @Test(arguments: fixtures)
    func countedTotalsAreTheParsedOnes(_ name: String) throws {
        let bytes = try AudioFixtures.bytes(name)
        // Whole, and cut short in the middle of a frame, of a packet and of the header.
        for length in [bytes.count, bytes.count - 5, bytes.count / 2 + 3, 5000] where length > 0 && length <= bytes.count {
            let cut = Array(bytes.prefix(length))
            let (whole, _) = Self.parse(cut, skippingAfter: nil)
            // Skipped from inside the first packet, and from the header.
            for head in [4099, 40] {
                let (skipped, fed) = Self.parse(cut, skippingAfter: head)
                #expect(skipped == whole, "\(name) cut to \(length), skipped after \(head)")
                if case .success(let properties) = skipped { #expect(properties.durationSource == .counted) }
                if length == bytes.count, head == 4099, bytes.count > 20000 { #expect(fed < bytes.count / 2, "\(name): \(fed) bytes fed") }
            }
        }
    }

    /// `info --exact` on 3 MiB of WAV reads its head (256 KiB) and the rest of its chunks, not
    /// the audio.
    @Test func anExactDescriptionReadsLittleOfALargeFile() async throws {
        let frames = 786_432 + 3
        var wav = Array("RIFF".utf8) + le(36 + frames * 4 + 12, 4) + Array("WAVEfmt ".utf8) + le(16, 4)
        wav += le(1, 2) + le(2, 2) + le(44100, 4) + le(44100 * 4, 4) + le(4, 2) + le(16, 2)
        wav += Array("data".utf8) + le(frames * 4, 4) + [UInt8](repeating: 7, count: frames * 4)
        wav += Array("junk".utf8) + le(4, 4) + [1, 2, 3, 4]
        let path = try TestFiles.makeTemporaryFolder() + "/large.wav"
        try Data(wav).write(to: URL(fileURLWithPath: path))
        var options = AudioInfo.Options()
        options.readsWholeStream = true
        let info = try await AudioInfo.read(from: path, options: options)
        #expect(info.audio.durationSource == .counted)
        #expect(info.audio.trimmedFrameCount == Int64(frames))
        #expect(info.audio.packetCount == Int64((frames + 1023) / 1024))
        #expect(info.source.bytesRead < 300_000)
    }

    private func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
