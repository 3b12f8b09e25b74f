import FoundationEssentials
import SlipstreamAudio

/// What `slipstream info` prints of an `AudioInfo`: where the bytes came from and what the
/// audio is, as text or JSON.
struct InfoReport {
    /// The description read.
    var info: AudioInfo

    /// The report as aligned `Label: value` lines, the source's first.
    var text: String {
        AudioStreamInfo.alignedLines(info.source.textFields + info.audio.textFields).joined(separator: "\n")
    }

    /// The report as pretty-printed JSON with sorted keys: `{"source": {...}, "audio": {...}}`,
    /// absent values left out.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return JSONLine.escapingTerminalControls(String(decoding: try encoder.encode(info), as: UTF8.self))
    }
}
