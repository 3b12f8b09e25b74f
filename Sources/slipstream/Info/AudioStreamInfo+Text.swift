import FoundationEssentials
import SlipstreamAudio

/// `slipstream info`'s rendering of the audio summary: aligned `Label: value` lines and JSON.
extension AudioStreamInfo {
    /// The summary as `Label: value` lines, for a terminal.
    var textLines: [String] { Self.alignedLines(textFields) }

    /// The summary as labelled values, in the order of `textLines`, for a caller that adds
    /// fields of its own before aligning them with `alignedLines(_:)`.
    var textFields: [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        let channels = format.channels == 1 ? "mono" : format.channels == 2 ? "stereo" : "\(format.channels) channels"
        lines.append(("Format", "\(format.codecDescription), \(format.sampleRate) Hz, \(channels)"))
        if let bitRate {
            let mode = bitRate.mode == .constant ? "CBR" : "VBR"
            let source =
                switch bitRate.source {
                case .frameHeader: "frame header"
                case .vbrHeader: "VBR header"
                case .runningMean: "mean of the packets read"
                }
            lines.append(("Bit rate", "\(Self.decimal(bitRate.bitsPerSecond / 1000, places: 1)) kbit/s \(mode) (\(source))"))
        }
        if let duration, let durationSource {
            let how = durationSource == .header ? "from the header" : durationSource == .counted ? "exact count" : "estimate"
            lines.append(("Duration", "\(Self.clock(duration, places: 0)) (\(Self.decimal(duration, places: 3)) s, \(how))"))
        }
        if let packetCount { lines.append(("Packets", "\(packetCount)")) }
        if let dataOffset {
            lines.append(("Audio data", audioDataByteCount.map { "\($0) bytes from byte \(dataOffset)" } ?? "from byte \(dataOffset)"))
        }
        if encoderDelay != nil || encoderPadding != nil {
            lines.append(("Gapless", "encoder delay \(encoderDelay ?? 0), padding \(encoderPadding ?? 0) frames"))
        }
        if let title = tags.title { lines.append(("Title", title)) }
        if let artist = tags.artist { lines.append(("Artist", artist)) }
        if let album = tags.album { lines.append(("Album", album)) }
        if !tags.kinds.isEmpty { lines.append(("Tags", tags.kinds.map(\.rawValue).joined(separator: ", "))) }
        lines.append(("Seekable", isSeekableByTime ? "by time" : "by byte offset only"))
        for (number, chapter) in (chapters ?? []).enumerated() {
            lines.append(("Chapter \(number + 1)", "\(Self.clock(chapter.startTime, places: 3)) \(chapter.title)"))
        }
        return lines
    }

    /// `Label: value` lines with the values lined up in one column.
    static func alignedLines(_ fields: [(label: String, value: String)]) -> [String] {
        let width = fields.map(\.label.count).max() ?? 0
        return fields.map { $0.label + ":" + String(repeating: " ", count: width - $0.label.count + 1) + Terminal.shown($0.value) }
    }

    /// The summary as pretty-printed JSON with sorted keys (absent values left out).
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// `value` with `places` decimals, without Foundation's locale.
    private static func decimal(_ value: Double, places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { result, _ in result * 10 }
        let scaled = Int64(clamping: value * scale, rounding: .toNearestOrAwayFromZero)
        let fraction = String(scaled % Int64(scale))
        return "\(scaled / Int64(scale))." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `seconds` as h:mm:ss or m:ss, with `places` decimals of a second (rounded; whole seconds
    /// are cut).
    private static func clock(_ seconds: Double, places: Int) -> String {
        let scale = (0..<places).reduce(1) { result, _ in result * 10 }
        let scaled = Int64(clamping: max(seconds, 0) * Double(scale), rounding: places == 0 ? .down : .toNearestOrAwayFromZero)
        let total = Int(scaled / Int64(scale))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        let whole = h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
        guard places > 0 else { return whole }
        let fraction = String(scaled % Int64(scale))
        return whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
