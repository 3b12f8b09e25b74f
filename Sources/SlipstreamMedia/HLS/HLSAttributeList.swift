/// The attribute list of an HLS tag (RFC 8216, section 4.2): `NAME=value` pairs separated by
/// commas, a value being a quoted string (which may hold commas), or a number, hexadecimal
/// sequence, enumerated string or resolution, unquoted. Names are upper case letters, digits
/// and `-`. Pure; a malformed pair is skipped, as a client ignores what it does not understand.
package struct HLSAttributeList: Hashable, Sendable {
    /// The pairs in order; a name given twice keeps its first value.
    package private(set) var values: [String: String] = [:]

    /// Reads the text after a tag's `:`.
    package init(_ text: Substring) {
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return }
            let name = rest[..<equals].trimmingSpaces()
            var after = rest[rest.index(after: equals)...]
            let value: Substring
            if after.first == "\"" {
                after = after.dropFirst()
                let close = after.firstIndex(of: "\"") ?? after.endIndex
                value = after[..<close]
                after = close == after.endIndex ? after[close...] : after[after.index(after: close)...]
                // Anything between the closing quote and the next comma is junk.
                after = after.firstIndex(of: ",").map { after[$0...] } ?? after[after.endIndex...]
            } else {
                let comma = after.firstIndex(of: ",") ?? after.endIndex
                value = after[..<comma].trimmingSpaces()
                after = after[comma...]
            }
            if Self.isName(name), values[String(name)] == nil { values[String(name)] = String(value) }
            rest = after.first == "," ? after.dropFirst() : after
        }
    }

    /// The value of `name`, unquoted.
    package subscript(name: String) -> String? { values[name] }

    /// The value of `name` as a decimal integer (digits only, as RFC 8216's decimal-integer).
    package func integer(_ name: String) -> Int64? { values[name].flatMap { Int64(decimalDigits: $0[...]) } }

    /// `YES` (true) or `NO` (false) for `name`; nil when absent or neither.
    package func flag(_ name: String) -> Bool? {
        switch values[name] {
        case "YES": true
        case "NO": false
        default: nil
        }
    }

    /// A hexadecimal sequence (`0x...` or `0X...`) for `name` as bytes, right-aligned in
    /// `count` bytes (an IV is 16); nil when absent, malformed or longer.
    package func hexadecimal(_ name: String, count: Int) -> [UInt8]? {
        guard let text = values[name], text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        let digits = Array(text.utf8.dropFirst(2))
        guard !digits.isEmpty, digits.count <= count * 2 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var index = count * 2 - digits.count
        for digit in digits {
            guard let nibble = Self.nibble(digit) else { return nil }
            bytes[index / 2] |= index % 2 == 0 ? nibble << 4 : nibble
            index += 1
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isName(_ name: Substring) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-")
            }
    }
}
