import FoundationEssentials
import SlipstreamAudio

/// What `slipstream info` prints: where the bytes came from and what the audio is.
struct InfoReport: Encodable {
    /// The file or URL, what the server said, and how much was read.
    var source: InfoSourceSummary
    /// The audio's format, bit rate, duration, tags and gapless figures.
    var audio: AudioStreamInfo

    /// The report as aligned `Label: value` lines, the source's first.
    var text: String {
        AudioStreamInfo.alignedLines(source.textFields + audio.textFields).joined(separator: "\n")
    }

    /// The report as pretty-printed JSON with sorted keys: `{"source": {...}, "audio": {...}}`,
    /// absent values left out.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
