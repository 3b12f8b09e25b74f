/// A small, tolerant XML tokenizer for XSPF: start and end tags (by local name, lowercased),
/// text and CDATA. Comments, processing instructions and declarations (a DOCTYPE with its
/// internal subset included) are skipped; entities other than the five predefined ones and
/// character references are left as written (nothing a document declares is expanded). Never
/// fails: whatever is unterminated runs to the end of the input. Every byte is looked at a
/// bounded number of times, so hostile input costs linear time.
package struct XMLTokenizer {
    package enum Token: Hashable {
        /// `<name ...>`, or `<name .../>` when `isEmpty`.
        case start(String, isEmpty: Bool)
        /// `</name>`.
        case end(String)
        /// Character data, entities not yet decoded.
        case text(Range<Int>)
        /// The content of a CDATA section.
        case cdata(Range<Int>)
    }

    package let bytes: [UInt8]
    private var index = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next token, nil at the end.
    package mutating func next() -> Token? {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let start = index
                index = find([UInt8(ascii: "<")], from: index) ?? bytes.count
                return .text(start..<index)
            }
            if has("<!--") {
                index = find(Array("-->".utf8), from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if has("<![CDATA[") {
                let start = index + 9
                let end = find(Array("]]>".utf8), from: start) ?? bytes.count
                index = min(end + 3, bytes.count)
                return .cdata(start..<end)
            } else if has("<?") {
                index = find(Array("?>".utf8), from: index + 2).map { $0 + 2 } ?? bytes.count
            } else if has("<!") {
                skipDeclaration()
            } else if has("</") {
                index += 2
                let name = readName()
                index = find([UInt8(ascii: ">")], from: index).map { $0 + 1 } ?? bytes.count
                return .end(name)
            } else {
                index += 1
                let name = readName()
                guard !name.isEmpty else { return .text(index - 1..<index) }
                return .start(name, isEmpty: skipAttributes())
            }
        }
        return nil
    }

    /// Whether the input at the current index starts with `prefix`.
    private func has(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
    }

    /// The index of the first `pattern` at or after `from`, nil when there is none.
    private func find(_ pattern: [UInt8], from: Int) -> Int? {
        var at = from
        while at + pattern.count <= bytes.count {
            if bytes[at] == pattern[0], bytes[at..<at + pattern.count].elementsEqual(pattern) { return at }
            at += 1
        }
        return nil
    }

    /// Reads a tag's name at the index: its local part (after any prefix), lowercased.
    private mutating func readName() -> String {
        let start = index
        var local = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "<") || Self.isSpace(byte) { break }
            index += 1
            if byte == UInt8(ascii: ":") { local = index }
        }
        return String(decoding: bytes[local..<index], as: UTF8.self).lowercased()
    }

    /// Skips a start tag's attributes (quoted values may hold `>`); returns whether the tag
    /// closed itself (`/>`).
    private mutating func skipAttributes() -> Bool {
        var quote: UInt8?
        var previous: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return previous == UInt8(ascii: "/")
            }
            previous = byte
        }
        return false
    }

    /// Skips `<!...>`, such as a DOCTYPE, with any `[...]` internal subset and quoted strings.
    private mutating func skipDeclaration() {
        var depth = 0
        var quote: UInt8?
        index += 2
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(depth - 1, 0)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                return
            }
        }
    }

    /// Appends the text in `range` to `out`, with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`,
    /// `&#N;` and `&#xH;` decoded (others left as written).
    package func appendText(_ range: Range<Int>, to out: inout [UInt8]) {
        var at = range.lowerBound
        while at < range.upperBound {
            let byte = bytes[at]
            guard byte == UInt8(ascii: "&"),
                let semicolon = bytes[at..<min(at + 12, range.upperBound)].firstIndex(of: UInt8(ascii: ";")),
                let decoded = Self.entity(bytes[at + 1..<semicolon])
            else {
                out.append(byte)
                at += 1
                continue
            }
            out += decoded
            at = semicolon + 1
        }
    }

    /// The UTF-8 of an entity's or character reference's name, nil when it is not one decoded.
    private static func entity(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        case let text where text.hasPrefix("#x") || text.hasPrefix("#X"):
            return UInt32(text.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { Array(String($0).utf8) }
        case let text where text.hasPrefix("#"):
            return UInt32(text.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init).map { Array(String($0).utf8) }
        default: return nil
        }
    }

    /// XML's white space.
    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
