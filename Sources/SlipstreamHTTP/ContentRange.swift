/// A parsed `Content-Range` header (RFC 9110, section 14.4) of the `bytes` unit.
public struct ContentRange: Sendable, Equatable {
    /// The first and last byte positions sent, inclusive; nil for `bytes */total`
    /// (the form a 416 response uses).
    public var range: ClosedRange<Int64>?
    /// The complete length of the representation; nil when the server sent `*`.
    public var total: Int64?

    /// Creates a value.
    public init(range: ClosedRange<Int64>?, total: Int64?) {
        self.range = range
        self.total = total
    }

    /// Parses `bytes FIRST-LAST/TOTAL`, `bytes FIRST-LAST/*` or `bytes */TOTAL`;
    /// nil for anything else, including a range whose last position is before its first
    /// or beyond the total.
    public init?(parsing text: String) {
        var rest = Substring(text).trimmingSpaces()
        guard rest.utf8.count > 6, rest.utf8.prefix(6).map({ $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }).elementsEqual("bytes ".utf8) else { return nil }
        rest = rest.dropFirst(6).trimmingSpaces()
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let rangePart = rest[..<slash].trimmingSpaces()
        let totalPart = rest[rest.index(after: slash)...].trimmingSpaces()

        if totalPart == "*" {
            total = nil
        } else {
            guard let value = Int64(decimalDigits: totalPart) else { return nil }
            total = value
        }
        if rangePart == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        guard let dash = rangePart.utf8.firstIndex(of: UInt8(ascii: "-")),
              let first = Int64(decimalDigits: rangePart[..<dash]),
              let last = Int64(decimalDigits: rangePart[rangePart.index(after: dash)...]),
              first <= last
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (looked at as bytes, not characters).
    package func trimmingSpaces() -> Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start = bytes.index(after: start) }
        while start < end, bytes[bytes.index(before: end)] == 32 || bytes[bytes.index(before: end)] == 9 {
            end = bytes.index(before: end)
        }
        return self[start..<end]
    }
}

extension Int64 {
    /// Parses a non-empty run of ASCII digits only (no sign, no spaces), rejecting overflow.
    init?(decimalDigits text: Substring) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let value = Int64(text)
        else { return nil }
        self = value
    }
}
