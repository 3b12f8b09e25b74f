/// A JSON value (RFC 8259), as the daemon reads requests and writes answers. Objects keep their
/// members in order, so that what is written is what was built; numbers are `Double` (aria2's
/// clients send small whole numbers: offsets, counts, positions).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// The member `key` of an object (the first, if repeated); nil for anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The text of a string.
    public var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The elements of an array.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The members of an object.
    public var members: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// A number that is a whole number in `Int`'s range.
    public var integer: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) < 9.0e15 else { return nil }
        return Int(number)
    }

    /// Whether it is an object.
    public var isObject: Bool {
        if case .object = self { true } else { false }
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}

// Not ExpressibleByNilLiteral: `nil` where a `JSONValue?` is expected would quietly be `.null`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
