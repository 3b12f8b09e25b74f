import SlipstreamCore
import SlipstreamAudio

/// The options that choose an HLS master playlist's variant, shared by `play` and `info`. Pure.
struct HLSVariantOptions: Equatable {
    /// What they choose.
    var selection = HLSVariantSelection()

    /// The help lines of these options, for each command's usage.
    static let usage = """
              --max-bitrate RATE     HLS: the richest variant within RATE bits per second
                                     (128000, 128k, 1.5M; default: no limit)
              --variant N            HLS: variant N of the master playlist, numbered from 0
                                     as slipstream info lists them
        """

    /// Applies option `name` if it is one of these; false otherwise.
    mutating func apply(_ name: String, inline: String?, reader: inout CommandLineArguments) throws(UsageError) -> Bool {
        switch name {
        case "--max-bitrate":
            selection.maximumBitRate = try Self.bitRate(try reader.value(for: name, inline: inline), for: name)
        case "--variant":
            selection.index = try CommandLineArguments.integer(try reader.value(for: name, inline: inline), for: name, in: 0...100_000)
        default:
            return false
        }
        return true
    }

    /// Parses bits per second: a number with an optional k or M suffix (powers of 1000).
    static func bitRate(_ text: String, for option: String) throws(UsageError) -> Int64 {
        var digits = Substring(text)
        var multiplier = 1.0
        switch digits.last {
        case "k", "K": multiplier = 1e3
        case "m", "M": multiplier = 1e6
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard let value = Double(decimalText: digits), value * multiplier >= 1, value * multiplier < 1e15 else {
            throw UsageError("\(option) must be bits per second like 128000, 128k or 1.5M, not '\(text.printable)'")
        }
        return Int64((value * multiplier).rounded())
    }
}
