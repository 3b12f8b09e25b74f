import SlipstreamCore
import SlipstreamDownload

/// A usage error: the message says what was wrong, for one line on stderr.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Walks command-line arguments: options with values in every common spelling
/// (`-o FILE`, `-oFILE`, `--output FILE`, `--output=FILE`), flags, and positionals
/// (everything after `--` is positional).
struct CommandLineArguments {
    private var remaining: [String]
    private var onlyPositionals = false

    init(_ arguments: [String]) {
        remaining = arguments
    }

    /// The next token: `.option(name, inlineValue)` for `-x`/`--name`, `.positional` otherwise.
    enum Token: Equatable {
        case option(String, inlineValue: String?)
        case positional(String)
    }

    mutating func next() -> Token? {
        guard !remaining.isEmpty else { return nil }
        let argument = remaining.removeFirst()
        if onlyPositionals || argument == "-" || !argument.hasPrefix("-") { return .positional(argument) }
        if argument == "--" {
            onlyPositionals = true
            return next()
        }
        if argument.hasPrefix("--") {
            if let equals = argument.firstIndex(of: "=") {
                return .option(String(argument[..<equals]), inlineValue: String(argument[argument.index(after: equals)...]))
            }
            return .option(argument, inlineValue: nil)
        }
        // A short option: `-n8` carries its value inline.
        let name = String(argument.prefix(2))
        let rest = String(argument.dropFirst(2))
        return .option(name, inlineValue: rest.isEmpty ? nil : rest)
    }

    /// The value of an option: its inline value, or the next argument.
    mutating func value(for option: String, inline: String?) throws(UsageError) -> String {
        if let inline { return inline }
        guard !remaining.isEmpty else { throw UsageError("\(option) needs a value") }
        return remaining.removeFirst()
    }

    /// Refuses an inline value for a flag (`--force=yes`, or `-qx`).
    static func flag(_ option: String, inline: String?) throws(UsageError) {
        if inline != nil { throw UsageError("\(option) takes no value") }
    }

    /// Parses a whole number in `range`: decimal digits only (no sign, no hex).
    static func integer(_ text: String, for option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int64(decimalDigits: Substring(text)), value >= range.lowerBound, value <= range.upperBound else {
            throw UsageError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text.printable)'")
        }
        return Int(value)
    }

    /// The seconds an option of seconds takes: from a millisecond to about 11.6 days.
    static let secondsRange = 0.001...1_000_000.0

    /// Parses seconds in `secondsRange`: a decimal number, fractions allowed (no exponent, no
    /// hex, no `inf`).
    static func seconds(_ text: String, for option: String) throws(UsageError) -> Double {
        guard let value = Double(decimalText: Substring(text)), secondsRange.contains(value) else {
            throw UsageError(
                "\(option) must be a number of seconds from \(secondsRange.lowerBound) to \(Int(secondsRange.upperBound)), "
                    + "not '\(text.printable)'")
        }
        return value
    }

    /// Checks a proxy URL: `http://`, `https://`, `socks4://`, `socks4a://`, `socks5://` or `socks5h://`.
    static func proxy(_ text: String, for option: String) throws(UsageError) -> String {
        let schemes = ["http://", "https://", "socks4://", "socks4a://", "socks5://", "socks5h://"]
        guard schemes.contains(where: { text.lowercased().hasPrefix($0) }) else {
            throw UsageError("\(option) must start with one of \(schemes.joined(separator: ", ")), not '\(text.printable)'")
        }
        return text
    }

    /// Splits a header given as `Name: value` (the name without spaces, the value's leading
    /// spaces dropped).
    static func header(_ text: String, for option: String) throws(UsageError) -> (name: String, value: String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            !text[..<colon].contains(where: { $0 == " " || $0 == "\t" })
        else { throw UsageError("\(option) must look like 'Name: value', not '\(text.printable)'") }
        return (String(text[..<colon]), String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }))
    }

    /// Parses a digest the finished file must have, `sha256=HEX` (or `sha1=`, `md5=`).
    static func checksum(_ text: String, for option: String) throws(UsageError) -> Checksum {
        do {
            return try Checksum(parsing: text)
        } catch {
            throw UsageError("\(option) must look like sha256=HEX (or sha1=, md5=) with the full digest, not '\(text)'")
        }
    }

    /// Parses a size in bytes with an optional K, M or G suffix (powers of 1024), e.g. `1M`:
    /// decimal digits only, up to `maximumByteSize`.
    static func byteSize(_ text: String, for option: String) throws(UsageError) -> Int64 {
        var digits = Substring(text)
        var multiplier: Int64 = 1
        switch digits.last.map({ Character($0.uppercased()) }) {
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard let value = Int64(decimalDigits: digits), value > 0, value <= maximumByteSize / multiplier else {
            throw UsageError("\(option) must be a size like 512K, 1M or 2G, up to 1024T, not '\(text.printable)'")
        }
        return value * multiplier
    }

    /// The largest size an option takes: 1024 TiB (2^50 bytes).
    static let maximumByteSize: Int64 = 1 << 50
}
