import SlipstreamCore

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
    /// or beyond the total. (Read as bytes: once per response, where Characters cost more.)
    public init?(parsing text: String) {
        let value = Substring(text).trimmingSpaces().utf8
        let unit = "bytes ".utf8
        guard value.count > unit.count,
            zip(value, unit).allSatisfy({ $0 == $1 || $0 >= 65 && $0 <= 90 && $0 + 32 == $1 })
        else { return nil }
        let rest = Substring(value.dropFirst(unit.count)).trimmingSpaces()
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let rangePart = rest[..<slash].trimmingSpaces()
        let totalPart = rest[rest.utf8.index(after: slash)...].trimmingSpaces()

        if totalPart.utf8.elementsEqual("*".utf8) {
            total = nil
        } else {
            guard let value = Int64(decimalDigits: totalPart) else { return nil }
            total = value
        }
        if rangePart.utf8.elementsEqual("*".utf8) {
            guard total != nil else { return nil }
            range = nil
            return
        }
        guard let dash = rangePart.utf8.firstIndex(of: UInt8(ascii: "-")),
            let first = Int64(decimalDigits: rangePart[..<dash]),
            let last = Int64(decimalDigits: rangePart[rangePart.utf8.index(after: dash)...]),
            first <= last
        else { return nil }
        if let total, last >= total { return nil }
        range = first...last
    }
}
