/// Reads aria2's option values: sizes (`1M`, `500K`, `1048576`: K = 1024, M = 1024 K, as
/// aria2's manual says), whole numbers in a range, and `true`/`false`. Pure.
package enum Aria2Value {
    /// A size in bytes: decimal digits with an optional `K` or `M` (either case); nil for
    /// anything else or past 2^50.
    package static func size(_ text: String) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1
        switch digits.last {
        case "K", "k":
            unit = 1 << 10
            digits = digits.dropLast()
        case "M", "m":
            unit = 1 << 20
            digits = digits.dropLast()
        default: break
        }
        guard let number = Int64(decimalDigits: digits), number <= (1 << 50) / unit else { return nil }
        return number * unit
    }

    /// A whole number (decimal digits) in `range`.
    static func integer(_ text: String, in range: ClosedRange<Int>) -> Int? {
        guard let number = Int64(decimalDigits: Substring(text)), number >= range.lowerBound, number <= range.upperBound
        else { return nil }
        return Int(number)
    }

    /// `true` or `false`.
    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }
}
