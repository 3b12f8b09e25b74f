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
        guard rest.lowercased().hasPrefix("bytes ") else { return nil }
        rest = rest.dropFirst(6).trimmingSpaces()
        guard let slash = rest.firstIndex(of: "/") else { return nil }
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
        guard let dash = rangePart.firstIndex(of: "-"),
              let first = Int64(decimalDigits: rangePart[..<dash]),
              let last = Int64(decimalDigits: rangePart[rangePart.index(after: dash)...]),
              first <= last
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var result = self
        while let c = result.first, c == " " || c == "\t" { result.removeFirst() }
        while let c = result.last, c == " " || c == "\t" { result.removeLast() }
        return result
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
