import Foundation
import Testing
import TestSupport

@testable import SlipstreamMedia

/// Facts about the audio fixtures from the reference tools, and a parse checked every way, for
/// the parser's tests and the decoders'.
package enum FixtureFacts {
    package static let flacFixtures = ["flac-16-seektable.flac", "flac-24-mono.flac", "flac-id3v2.flac", "flac-ffmpeg-22050.flac"]

    /// `metaflac`'s figure for `field` (e.g. `total-samples`) of fixture `name`.
    package static func metaflac(_ name: String, _ field: String) async throws -> Int64 {
        let (status, text) = try await ExternalProgram.output(["metaflac", "--show-\(field)", try AudioFixtures.path(name)])
        #expect(status == 0)
        return try #require(Int64(text.split(separator: "\n").first ?? ""))
    }

    /// Parses `bytes` whole, byte by byte and in random splits, which must agree.
    package static func parseEveryWay(_ bytes: [UInt8], hints: AudioStreamHints = .init()) -> ParserRun {
        let whole = ParserRun(bytes, hints: hints) { bytes.count }
        var random = SeededRandom(state: 1515)
        let randomRun = ParserRun(bytes, hints: hints) { Int.random(in: 1...3000, using: &random) }
        #expect(Bool(randomRun == whole), "\(randomRun.firstDifference(from: whole))")
        let single = ParserRun(bytes, hints: hints) { 1 }
        #expect(Bool(single == whole), "\(single.firstDifference(from: whole))")
        return whole
    }

    /// The frames of the source a fixture was encoded from.
    package static func mp4SourceFrames(_ name: String) throws -> Int64 {
        let source = name.contains("22050") ? "22050-mono" : "44100"
        let text = try String(contentsOfFile: try AudioFixtures.path("mp4-source-\(source).frames"), encoding: .utf8)
        return try #require(Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
