/// Reads JSON text (RFC 8259) strictly and within bounds: nothing but one value with white
/// space around it, no comments, no trailing commas, no leading zeros, UTF-8 only, strings'
/// escapes checked (a lone surrogate is an error), at most `maximumDepth` arrays and objects
/// inside each other. The size is the caller's bound (the server refuses bodies over its own).
/// Pure: bytes in, a value or the first error's offset out.
public struct JSONParser {
    /// Why a text is not JSON: what, and the byte offset where it was seen.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        /// The byte offset (0-based) in the text.
        public var offset: Int

        /// `message at byte N`.
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Arrays and objects nested deeper than this are refused (a stack bound). Default 64.
    public static let maximumDepth = 64

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in
            var parser = Reader(bytes: buffer)
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == buffer.count else { throw parser.failure("text after the JSON value") }
            return value
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard let byte = peek else { throw failure("the text ends where a value was expected") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count,
                UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<index + count])
            else { throw failure("unexpected word") }
            index += count
            return value
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth)") }
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            skipSpace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw failure("an object's key must be a string") }
                let key = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw failure("':' expected after an object's key") }
                index += 1
                skipSpace()
                members.append((key, try value(depth: depth)))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                default: throw failure("',' or '}' expected in an object")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested deeper than \(JSONParser.maximumDepth)") }
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: throw failure("',' or ']' expected in an array")
                }
            }
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, isDigit(first) else { throw failure("a digit expected in a number") }
            index += 1
            if first == UInt8(ascii: "0"), let next = peek, isDigit(next) { throw failure("a number with a leading zero") }
            skipDigits()
            if peek == UInt8(ascii: ".") {
                index += 1
                guard let next = peek, isDigit(next) else { throw failure("a digit expected after '.'") }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let next = peek, isDigit(next) else { throw failure("a digit expected in an exponent") }
                skipDigits()
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let number = Double(text), number.isFinite else {
                index = start
                throw failure("a number out of range")
            }
            return .number(number)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while let byte = peek, isDigit(byte) { index += 1 }
        }

        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            // The common case, a string without escapes, is one validated copy.
            while let byte = peek, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                index += 1
            }
            guard let stop = peek else { throw failure("a string without its closing quote") }
            if stop == UInt8(ascii: "\"") {
                index += 1
                return try text(bytes[start..<index - 1], at: start)
            }
            var utf8 = Array(bytes[start..<index])
            while true {
                guard let byte = peek else { throw failure("a string without its closing quote") }
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return try text(utf8[...], at: start)
                case UInt8(ascii: "\\"):
                    try escape(into: &utf8)
                case ..<0x20:
                    index -= 1
                    throw failure("a control character in a string")
                default:
                    utf8.append(byte)
                }
            }
        }

        func text<Bytes: Collection<UInt8>>(_ utf8: Bytes, at start: Int) throws(Failure) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw Failure(message: "a string that is not UTF-8", offset: start)
            }
            return text
        }

        mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
            guard let byte = peek else { throw failure("a string ends inside an escape") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                        throw failure("a lone surrogate in a string")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw failure("a lone surrogate in a string")
                }
                // Every value left is a scalar: surrogates were paired or refused above.
                utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                index -= 1
                throw failure("an unknown escape in a string")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw failure("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
