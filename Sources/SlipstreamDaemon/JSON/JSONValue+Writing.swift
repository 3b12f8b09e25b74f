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
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x22: output += #"\""#.utf8
            case 0x5C: output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0..<0x20, 0x7F, 0x2028, 0x2029:
                output += #"\u"#.utf8
                for shift in stride(from: 12, through: 0, by: -4) {
                    output.append(hexDigits[Int(scalar.value >> UInt32(shift)) & 0xF])
                }
            default:
                UTF8.encode(scalar) { output.append($0) }
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
