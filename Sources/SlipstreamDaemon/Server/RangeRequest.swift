/// What a request's `Range` header asks of a file of a given size (RFC 9110, 14.2): the whole
/// file, one part of it, or nothing it has. Single ranges only: of a list, the first range the
/// file can satisfy is answered (a 206 with one part, which RFC 9110 allows; never a multipart
/// answer). A header that is not `bytes=` with well-formed ranges is ignored (the whole file),
/// as the RFC allows. A satisfiable range is a part even when it covers the whole file: players
/// take a 206 to mean they may seek.
enum RangeRequest: Equatable {
    /// No range (or one ignored): 200 with every byte.
    case whole
    /// 206 with these bytes (never empty, inside the file).
    case part(Range<Int64>)
    /// 416: every range starts at or past the end.
    case unsatisfiable

    /// What `header` (nil: none) asks of a file of `size` bytes (nil: not known, when every
    /// range is ignored).
    init(header: String?, size: Int64?) {
        guard let header, let size, let specs = Self.ranges(of: header) else {
            self = .whole
            return
        }
        self = specs.lazy.compactMap { Self.part(of: $0, size: size) }.first.map { .part($0) } ?? .unsatisfiable
    }

    /// The bytes of a file of `size` that `spec` names; nil when none.
    private static func part(of spec: Spec, size: Int64) -> Range<Int64>? {
        switch spec {
        case .from(let start, let last):
            guard start < size else { return nil }
            return start..<min(last.map { $0 + 1 } ?? size, size)
        case .suffix(let count):
            guard count > 0, size > 0 else { return nil }
            return max(0, size - count)..<size
        }
    }

    /// One range as written: `first-[last]` or `-count`.
    private enum Spec {
        case from(Int64, last: Int64?)
        case suffix(Int64)
    }

    /// The ranges of a well-formed `bytes=` header; nil for any other.
    private static func ranges(of header: String) -> [Spec]? {
        let value = Self.trimmed(header[...])
        guard value.lowercased().hasPrefix("bytes=") else { return nil }
        var specs: [Spec] = []
        for part in value.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false) {
            let text = trimmed(part)
            // Empty elements of a list are allowed (RFC 9110, 5.6.1); a list of none is not.
            if text.isEmpty { continue }
            guard let spec = spec(text) else { return nil }
            specs.append(spec)
        }
        return specs.isEmpty ? nil : specs
    }

    private static func spec(_ text: Substring) -> Spec? {
        guard let dash = text.firstIndex(of: "-") else { return nil }
        let first = text[..<dash], last = text[text.index(after: dash)...]
        if first.isEmpty { return number(last).map { .suffix($0) } }
        guard let start = number(first) else { return nil }
        if last.isEmpty { return .from(start, last: nil) }
        guard let end = number(last), end >= start else { return nil }
        return .from(start, last: end)
    }

    /// `text` without the spaces and tabs at either end.
    private static func trimmed(_ text: Substring) -> Substring {
        let isText: (Character) -> Bool = { $0 != " " && $0 != "\t" }
        guard let start = text.firstIndex(where: isText), let end = text.lastIndex(where: isText) else { return "" }
        return text[start...end]
    }

    /// Decimal digits only (no sign, no space), within Int64.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
