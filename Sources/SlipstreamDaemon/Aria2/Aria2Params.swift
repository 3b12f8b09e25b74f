/// The parameters of one call, read by position with aria2's rules: each accessor throws
/// `Invalid params`-style failures naming what was expected.
struct Aria2Params {
    let values: [JSONValue]

    var count: Int { values.count }

    /// The GID text at `index`: 16 hex digits, or a prefix of them (as aria2 takes).
    func gidText(_ index: Int) throws(RPCFailure.Kind) -> String {
        guard index < values.count, let text = values[index].string else {
            throw .failed("The parameter at \(index) has wrong type.")
        }
        guard !text.isEmpty, text.utf8.count <= 16, UInt64(text, radix: 16) != nil, !text.hasPrefix("+"), !text.hasPrefix("-")
        else { throw .failed("Invalid GID \(text)") }
        return text.lowercased()
    }

    /// The whole number at `index`: a JSON number (or, as some clients send, its text).
    func integer(_ index: Int) throws(RPCFailure.Kind) -> Int {
        guard index < values.count else { throw .failed("a number is expected as parameter \(index + 1)") }
        if let number = values[index].integer { return number }
        if let text = values[index].string, let number = Int(text) { return number }
        throw .failed("a number is expected as parameter \(index + 1)")
    }

    /// The string at `index`.
    func string(_ index: Int) throws(RPCFailure.Kind) -> String {
        guard index < values.count, let text = values[index].string else {
            throw .failed("a string is expected as parameter \(index + 1)")
        }
        return text
    }

    /// The array of strings at `index`.
    func strings(_ index: Int) throws(RPCFailure.Kind) -> [String] {
        guard index < values.count, let elements = values[index].array else {
            throw .failed("an array of strings is expected as parameter \(index + 1)")
        }
        var strings: [String] = []
        for element in elements {
            guard let text = element.string else { throw .failed("an array of strings is expected as parameter \(index + 1)") }
            strings.append(text)
        }
        return strings
    }

    /// The value at `index`, if given.
    func optional(_ index: Int) -> JSONValue? { index < values.count ? values[index] : nil }

    /// The keys filter at `index` (nil: every key, as for an empty list).
    func keys(_ index: Int) throws(RPCFailure.Kind) -> Set<String>? {
        guard index < values.count else { return nil }
        if case .null = values[index] { return nil }
        let keys = Set(try strings(index))
        return keys.isEmpty ? nil : keys
    }
}
