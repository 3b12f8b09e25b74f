extension JSONValue {
    /// The value as compact JSON text (UTF-8). Strings escape `"`, `\`, the C0 controls, and
    /// U+2028/U+2029 (so that a JSONP answer is also valid JavaScript); numbers that are whole
    /// are written without a fraction; a number that is not finite is written as `null`.
    public var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    /// Appends the value's JSON text to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += "null".utf8
        case .bool(let value): output += (value ? "true" : "false").utf8
        case .number(let value): Self.write(number: value, to: &output)
        case .string(let text): Self.write(string: text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func write(number: Double, to output: inout [UInt8]) {
        guard number.isFinite else {
            output += "null".utf8
            return
        }
        if number.rounded() == number, abs(number) < 9.0e15 {
            output += String(Int64(number)).utf8
        } else {
            output += String(number).utf8
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func write(string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Byte by byte: UTF-8 stays as it is, but for the characters escaped (U+2028 and
        // U+2029 are E2 80 A8 and E2 80 A9).
        var utf8 = string.utf8.makeIterator()
        var pending: [UInt8] = []
        while let byte = pending.isEmpty ? utf8.next() : pending.removeFirst() {
            switch byte {
            case 0x22: output += #"\""#.utf8
            case 0x5C: output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0..<0x20, 0x7F: escape(UInt32(byte), to: &output)
            case 0xE2:
                guard let second = utf8.next() else {
                    output.append(byte)
                    continue
                }
                guard second == 0x80, let third = utf8.next() else {
                    output.append(byte)
                    pending.append(second)
                    continue
                }
                if third == 0xA8 || third == 0xA9 {
                    escape(0x2000 | UInt32(third - 0xA8 + 0x28), to: &output)
                } else {
                    output += [byte, second]
                    pending.append(third)
                }
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX` for `value`.
    private static func escape(_ value: UInt32, to output: inout [UInt8]) {
        output += #"\u"#.utf8
        for shift in stride(from: 12, through: 0, by: -4) { output.append(hexDigits[Int(value >> UInt32(shift)) & 0xF]) }
    }
}
