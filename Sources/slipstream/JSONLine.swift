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
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
