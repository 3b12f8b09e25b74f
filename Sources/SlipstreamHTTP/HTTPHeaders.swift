/// One header field as it arrived: the name keeps its original case.
public struct HTTPHeaderField: Sendable, Equatable {
    /// The field name, e.g. `Content-Type`.
    public var name: String
    /// The field value with surrounding whitespace removed.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The header fields of a request or response, in order. Look-ups ignore case;
/// repeated fields are all kept.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [HTTPHeaderField] = []

    /// An empty list.
    public init() {}

    /// A list from `(name, value)` pairs, in the given order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeaderField(name: name, value: value))
    }

    /// Removes every field with this name (any case).
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of the field with this name (any case), or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the fields with this name (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The number of fields, repeated ones counted each time.
    public var count: Int { fields.count }

    /// Iterates the fields in the order they arrived.
    public func makeIterator() -> IndexingIterator<[HTTPHeaderField]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality, as header names need.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in asciiLower(a) == asciiLower(b) }
    }
}

@inline(__always)
private func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
}
