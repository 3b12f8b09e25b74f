import SlipstreamCore

/// One JSON object on one line, its keys in the order added, `"event"` first: what
/// `play --json` writes. Absent values are left out; numbers that are not finite too. Pure.
struct JSONLine {
    private var text: String

    /// `{"event":"NAME"` so far.
    init(event: String) {
        text = "{\"event\":" + Self.quoted(event)
    }

    /// The finished line, without its newline.
    var line: String { text + "}" }

    /// Adds `"key":"value"` when `value` is given.
    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        append(key, Self.quoted(value))
    }

    /// Adds `"key":value` when `value` is given.
    mutating func add(_ key: String, _ value: Int64?) {
        guard let value else { return }
        append(key, String(value))
    }

    /// Adds `"key":value` when `value` is given.
    mutating func add(_ key: String, _ value: Int?) {
        add(key, value.map(Int64.init))
    }

    /// Adds `"key":value`, rounded to thousandths, when `value` is given and finite.
    mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        append(key, "\((value * 1000).rounded() / 1000)")
    }

    private mutating func append(_ key: String, _ encoded: String) {
        text += "," + Self.quoted(key) + ":" + encoded
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, everything
    /// else as it is (UTF-8).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.isTerminalControl: out += escaped(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// JSON text (as `JSONEncoder` writes it, whose strings keep DEL, the C1 controls and the
    /// bidirectional overrides as they are) with those escaped as `\uXXXX`: the same JSON, safe
    /// on a terminal. Its line breaks and the C0 controls, escaped by the encoder, stay.
    static func escapingTerminalControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.isTerminalControl && $0.value >= 0x20 }) else { return json }
        var out = ""
        for scalar in json.unicodeScalars {
            if scalar.isTerminalControl, scalar.value >= 0x20 { out += escaped(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// `\uXXXX` for a scalar of the Basic Multilingual Plane.
    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
