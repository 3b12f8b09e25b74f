/// What one ICY metadata block says: `StreamTitle='Artist - Title';StreamUrl='http://...';`
/// padded with NULs to a multiple of 16 bytes.
///
/// A value ends at the first `';` after its opening quote (titles contain `'` and `;` on their
/// own), and anything after the last field (NUL padding, stale bytes of an older, longer block
/// that servers leave behind) is ignored. Text is UTF-8 when valid, else Windows-1252: servers
/// send both.
package struct ICYMetadata: Hashable, Sendable {
    /// The `StreamTitle` value (may be empty: the station cleared its title); nil without one.
    package var title: String?
    /// The `StreamUrl` value; nil without one or when empty.
    package var url: String?

    /// Reads a block.
    package init(_ block: UnsafeRawBufferPointer) {
        var end = block.count
        while end > 0, block[end - 1] == 0 { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: block[..<end])
        title = Self.value(of: "StreamTitle", in: text)
        url = Self.value(of: "StreamUrl", in: text).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value of `key='...'` in `text`: from after the quote to the first `';`, or to the
    /// last `'` before the end (or the end) when the block holds no `';` after it.
    private static func value(of key: String, in text: UnsafeRawBufferPointer) -> String? {
        let opening = Array((key + "='").utf8)
        guard let start = find(opening, in: text, from: 0).map({ $0 + opening.count }) else { return nil }
        var end = text.count
        var index = start
        while index + 1 < text.count {
            if text[index] == UInt8(ascii: "'"), text[index + 1] == UInt8(ascii: ";") {
                end = index
                break
            }
            index += 1
        }
        if end == text.count, end > start, text[end - 1] == UInt8(ascii: "'") { end -= 1 }
        var value = UnsafeRawBufferPointer(rebasing: text[start..<end])
        if let nul = value.firstIndex(of: 0) { value = UnsafeRawBufferPointer(rebasing: value[..<nul]) }
        return String(utf8OrWindows1252: value)
    }

    /// Where `pattern` first occurs in `text` at or after `from`.
    private static func find(_ pattern: [UInt8], in text: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard text.count >= pattern.count else { return nil }
        var index = from
        while index + pattern.count <= text.count {
            if text[index] == pattern[0], text[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
