/// Numbers from outside (options, headers, playlists, tags) are read strictly and converted
/// with checks: a value that a conversion would trap on, or that means nothing here, is `nil`
/// for its reader to refuse with a clear error, never a crash and never a quiet guess.
extension Double {
    /// A decimal number as people and RFC 8216 write it: ASCII digits, with at most one `.`
    /// followed by digits, and a leading `-` only when `signed`. No `+`, no exponent, no hex, no
    /// `nan` or `inf`, no spaces; at most 40 characters. Nil for anything else.
    package init?(decimalText text: Substring, signed: Bool = false) {
        var digits = text
        if signed, digits.first == "-" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.count <= 40 else { return nil }
        var seenPoint = false
        var digitsAfterPoint = 0
        var digitsBeforePoint = 0
        for byte in digits.utf8 {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if seenPoint { digitsAfterPoint += 1 } else { digitsBeforePoint += 1 }
            } else {
                return nil
            }
        }
        guard digitsBeforePoint > 0, !seenPoint || digitsAfterPoint > 0, let value = Double(String(text)) else { return nil }
        self = value
    }
}

extension Int64 {
    /// `value` rounded as `rule` says, when it is finite and the result fits in 64 bits; nil
    /// otherwise (where `Int64(value)` would trap).
    package init?(checking value: Double, rounding rule: FloatingPointRoundingRule = .towardZero) {
        let rounded = value.rounded(rule)
        // 2^63 is the first double past Int64.max; -2^63 is Int64.min itself.
        guard rounded.isFinite, rounded >= -9_223_372_036_854_775_808.0, rounded < 9_223_372_036_854_775_808.0 else { return nil }
        self.init(rounded)
    }

    /// `value` rounded as `rule` says, held to `-Int64.max...Int64.max` (NaN gives 0): for a
    /// figure shown to a person or a bound, where saturating is the right answer (and `abs`
    /// and negation of the result never trap).
    package init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .towardZero) {
        if value.isNaN {
            self = 0
        } else {
            self = Swift.max(Int64(checking: value, rounding: rule) ?? (value < 0 ? -.max : .max), -.max)
        }
    }
}

extension Duration {
    /// The longest time or duration from outside that the player and the downloader take:
    /// 10^9 seconds (about 31.7 years). Sample counts at any rate up to 10^9 Hz, nanoseconds
    /// and milliseconds of it all fit in 64 bits, so nothing computed from it overflows.
    package static let maximumSeconds: Double = 1e9

    /// `seconds` as a duration, when it is finite and from 0 to `maximumSeconds`; nil
    /// otherwise (where `.seconds(_:)` would trap, or its `components` later would).
    package static func checkedSeconds(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumSeconds else { return nil }
        return .seconds(seconds)
    }
}
