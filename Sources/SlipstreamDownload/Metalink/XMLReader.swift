/// A small, strict XML 1.0 reader for documents that come from outside (Metalink files, sent by
/// any client of the daemon): bytes in, a tree of `XMLElement`s out, or an error naming the
/// line. It reads what such documents use: elements, attributes, character data, the five
/// predefined entities and numeric character references, CDATA sections, comments, processing
/// instructions (skipped) and namespaces by prefix.
///
/// It refuses what could make a small document expensive or ambiguous: any DOCTYPE (so no
/// entity is ever defined, and none expands: no "billion laughs"), more than `Limits` allows,
/// text that is not UTF-8 (or ISO-8859-1 when the declaration says so), control characters,
/// and anything that is not well formed (crossed or unclosed tags, duplicate attributes,
/// undeclared prefixes). Pure, with no Foundation: no I/O, nothing global.
struct XMLReader {
    /// How much a document may hold; past any of these it is refused, whatever it says.
    struct Limits: Sendable {
        /// The document's size in bytes: 8 MiB. The biggest part of a real Metalink is its
        /// piece hashes: a 4 GiB file in 256 KiB pieces has 16,384, about 1.4 MiB as SHA-256.
        var maxBytes = 8 << 20
        /// Elements inside each other, the root counting as 1.
        var maxDepth = 32
        /// Elements in all.
        var maxElements = 200_000
        /// Bytes of character data in one element, or in one attribute value.
        var maxTextBytes = 1 << 20
        /// Attributes on one element (namespace declarations included).
        var maxAttributes = 64
        /// Bytes of one element or attribute name.
        var maxNameBytes = 256
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var index = 0
    private var elementCount = 0
    /// The namespace declarations in force, one list per open element: (prefix, URI), the
    /// prefix "" for the default namespace (an empty URI undeclares it).
    private var scopes: [[(prefix: String, uri: String)]] = []
    /// The line counted so far, up to `countedIndex`.
    private var countedLine = 1
    private var countedIndex = 0

    private init(_ bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// The root element of the document in `bytes`; throws for a document that is not well
    /// formed, is not UTF-8 (or declared ISO-8859-1), has a DOCTYPE, or exceeds `limits`.
    static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(MetalinkError) -> XMLElement {
        guard bytes.count <= limits.maxBytes else {
            throw MetalinkError(line: 0, "the document is \(bytes.count) bytes, more than the \(limits.maxBytes) read")
        }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw MetalinkError(line: 1, "a UTF-16 document: only UTF-8 (or a declared ISO-8859-1) is read")
        }
        var reader = XMLReader(bytes, limits: limits)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        switch try reader.declaration()?.lowercased() {
        case nil, "utf-8", "utf8", "us-ascii", "ascii":
            try reader.checkCharacters()
        case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "iso_8859-1":
            // Each byte is the code point of the same value: as UTF-8, two bytes from 0x80 up.
            let text = bytes.flatMap { $0 < 0x80 ? [$0] : [0xC0 | $0 >> 6, 0x80 | $0 & 0x3F] }
            reader = XMLReader(text, limits: limits)
            _ = try reader.declaration()
            try reader.checkCharacters()
        case let other?:
            throw MetalinkError(line: 1, "the encoding '\(other)': only UTF-8 and ISO-8859-1 are read")
        }
        return try reader.document()
    }

    // MARK: The document

    /// The XML declaration's encoding, if the document starts with one (after any BOM).
    private mutating func declaration() throws(MetalinkError) -> String? {
        guard isAt("<?xml"), index + 5 < bytes.count, Self.isSpace(bytes[index + 5]) else { return nil }
        index += 5
        var encoding: String?
        while true {
            let spaced = skipSpaces()
            if isAt("?>") {
                index += 2
                return encoding
            }
            guard spaced else { throw error("the XML declaration is not <?xml version=\"1.0\" ...?>") }
            let name = try self.name()
            skipSpaces()
            try expect("=")
            skipSpaces()
            let value = try attributeValue()
            switch name {
            case "version":
                guard value.hasPrefix("1.") else { throw error("XML version '\(value)': only 1.x is read") }
            case "encoding": encoding = value
            case "standalone": break
            default: throw error("'\(name)' in the XML declaration")
            }
        }
    }

    /// Refuses bytes that are not UTF-8 and control characters XML does not allow (all below
    /// 0x20 but TAB, LF and CR), naming the line of the first.
    private mutating func checkCharacters() throws(MetalinkError) {
        if let bad = bytes.firstIndex(where: { $0 < 0x20 && $0 != 9 && $0 != 10 && $0 != 13 }) {
            index = bad
            throw error("a control character (0x\(String(bytes[bad], radix: 16, uppercase: true)))")
        }
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return
            case .error:
                index = offset
                throw error("bytes that are not UTF-8")
            }
        }
    }

    /// The root element, with only comments, processing instructions and white space around it.
    private mutating func document() throws(MetalinkError) -> XMLElement {
        var root: XMLElement?
        while true {
            skipSpaces()
            guard index < bytes.count else { break }
            if isAt("<!--") {
                try comment()
            } else if isAt("<?") {
                try processingInstruction()
            } else if isAt("<!DOCTYPE") || isAt("<!ENTITY") {
                throw error("a DOCTYPE or ENTITY declaration: refused (no DTD is read, so no entity expands)")
            } else if isAt("<!") {
                throw error("a declaration (<!...) outside the root element")
            } else if bytes[index] == UInt8(ascii: "<") {
                guard root == nil else { throw error("a second root element") }
                root = try element(depth: 1)
            } else {
                throw error("text outside the root element")
            }
        }
        guard let root else { throw error("no root element") }
        return root
    }

    // MARK: Elements

    /// The element whose `<` is at `index`, its content and its end tag.
    private mutating func element(depth: Int) throws(MetalinkError) -> XMLElement {
        guard depth <= limits.maxDepth else { throw error("elements nested more than \(limits.maxDepth) deep") }
        elementCount += 1
        guard elementCount <= limits.maxElements else { throw error("more than \(limits.maxElements) elements") }
        let line = currentLine()
        index += 1
        let qualifiedName = try name()
        var attributes: [XMLElement.Attribute] = []
        var scope: [(prefix: String, uri: String)] = []
        var empty = false
        while true {
            let spaced = skipSpaces()
            if isAt("/>") {
                index += 2
                empty = true
                break
            }
            if isAt(">") {
                index += 1
                break
            }
            guard index < bytes.count else { throw error("<\(qualifiedName) is cut short") }
            guard spaced else { throw error("expected white space, '>' or '/>' in <\(qualifiedName)>") }
            let name = try self.name()
            skipSpaces()
            try expect("=")
            skipSpaces()
            let value = try attributeValue()
            guard !attributes.contains(where: { $0.name == name }), !scope.contains(where: { "xmlns:" + $0.prefix == name }),
                !(name == "xmlns" && scope.contains { $0.prefix.isEmpty })
            else { throw error("the attribute '\(name)' twice in <\(qualifiedName)>") }
            guard attributes.count + scope.count < limits.maxAttributes else {
                throw error("more than \(limits.maxAttributes) attributes in <\(qualifiedName)>")
            }
            if name == "xmlns" {
                scope.append((prefix: "", uri: value))
            } else if name.hasPrefix("xmlns:") {
                guard !value.isEmpty, name.utf8.count > 6, !name.dropFirst(6).contains(":") else {
                    throw error("'\(name)=\"\(value)\"' binds no prefix or binds it to nothing")
                }
                scope.append((prefix: String(name.dropFirst(6)), uri: value))
            } else {
                attributes.append(XMLElement.Attribute(name: name, value: value))
            }
        }
        scopes.append(scope)
        defer { scopes.removeLast() }
        let (namespace, localName) = try resolve(qualifiedName)
        var element = XMLElement(namespace: namespace, name: localName, attributes: attributes, line: line)
        if empty { return element }
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw error("<\(qualifiedName)> (line \(line)) is never closed")
            }
            if bytes[index] == UInt8(ascii: "<") {
                if isAt("</") {
                    index += 2
                    let endName = try name()
                    skipSpaces()
                    try expect(">")
                    guard endName == qualifiedName else {
                        throw error("</\(endName)> where </\(qualifiedName)> (opened on line \(line)) was expected")
                    }
                    element.text = String(decoding: text, as: UTF8.self)
                    return element
                } else if isAt("<!--") {
                    try comment()
                } else if isAt("<![CDATA[") {
                    try cdata(into: &text)
                } else if isAt("<?") {
                    try processingInstruction()
                } else if isAt("<!") {
                    throw error("a declaration (<!...) inside <\(qualifiedName)>")
                } else {
                    element.children.append(try self.element(depth: depth + 1))
                }
            } else if bytes[index] == UInt8(ascii: "&") {
                try reference(into: &text)
            } else {
                characters(into: &text)
            }
            guard text.count <= limits.maxTextBytes else {
                throw error("more than \(limits.maxTextBytes) bytes of text in <\(qualifiedName)>")
            }
        }
    }

    /// The namespace and local name of a qualified name, by the declarations in force.
    private mutating func resolve(_ qualifiedName: String) throws(MetalinkError) -> (String?, String) {
        let parts = qualifiedName.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }) else {
            throw error("'\(qualifiedName)' is not a name or prefix:name")
        }
        let prefix = parts.count == 2 ? String(Substring(parts[0])) : ""
        let local = String(Substring(parts[parts.count - 1]))
        if prefix == "xml" { return ("http://www.w3.org/XML/1998/namespace", local) }
        for scope in scopes.reversed() {
            if let binding = scope.last(where: { $0.prefix == prefix }) {
                return (binding.uri.isEmpty ? nil : binding.uri, local)
            }
        }
        guard prefix.isEmpty else { throw error("the prefix '\(prefix)' is not declared") }
        return (nil, local)
    }

    // MARK: Character data

    /// Text up to the next `<` or `&`, line ends (CR LF, CR) made LF.
    private mutating func characters(into text: inout [UInt8]) {
        while index < bytes.count, bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "&") {
            appendNormalisingLineEnd(to: &text)
        }
    }

    /// A CDATA section's content, as it is (line ends made LF).
    private mutating func cdata(into text: inout [UInt8]) throws(MetalinkError) {
        let start = currentLine()
        index += 9
        while !isAt("]]>") {
            guard index < bytes.count else { throw error("the CDATA section of line \(start) never ends") }
            appendNormalisingLineEnd(to: &text)
        }
        index += 3
    }

    private mutating func appendNormalisingLineEnd(to text: inout [UInt8]) {
        if bytes[index] == 13 {
            text.append(10)
            index += index + 1 < bytes.count && bytes[index + 1] == 10 ? 2 : 1
        } else {
            text.append(bytes[index])
            index += 1
        }
    }

    /// An entity or character reference at `&`, appended as UTF-8. Only the five entities XML
    /// predefines exist: there is no DTD to define others.
    private mutating func reference(into text: inout [UInt8]) throws(MetalinkError) {
        index += 1
        guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw error("a '&' that starts no reference (write &amp;)")
        }
        let body = String(decoding: bytes[index..<end], as: UTF8.self)
        index = end + 1
        let scalar: Unicode.Scalar?
        switch body {
        case "amp": scalar = "&"
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            guard body.hasPrefix("#") else { throw error("the entity '&\(body);': only &amp; &lt; &gt; &quot; &apos; are defined") }
            let hex = body.hasPrefix("#x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && $0.isASCII && (hex || $0.isNumber) }),
                let value = UInt32(digits, radix: hex ? 16 : 10)
            else { throw error("the character reference '&\(body);' is not a number") }
            scalar = Unicode.Scalar(value)
        }
        guard let scalar, Self.isXMLCharacter(scalar) else { throw error("'&\(body);' is not a character XML allows") }
        text.append(contentsOf: String(scalar).utf8)
    }

    /// A quoted attribute value, references expanded, TAB, CR and LF each made a space (CR LF
    /// one space), as XML normalises attributes.
    private mutating func attributeValue() throws(MetalinkError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw error("an attribute value not in quotes")
        }
        let quote = bytes[index]
        index += 1
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("an attribute value that never ends") }
            switch bytes[index] {
            case quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"): throw error("a '<' in an attribute value (write &lt;)")
            case UInt8(ascii: "&"): try reference(into: &value)
            case 9, 10, 13:
                appendNormalisingLineEnd(to: &value)
                value[value.count - 1] = 32
            default:
                value.append(bytes[index])
                index += 1
            }
            guard value.count <= limits.maxTextBytes else { throw error("an attribute value longer than \(limits.maxTextBytes) bytes") }
        }
    }

    // MARK: Markup skipped

    private mutating func comment() throws(MetalinkError) {
        let start = currentLine()
        index += 4
        while !isAt("--") {
            guard index < bytes.count else { throw error("the comment of line \(start) never ends") }
            index += 1
        }
        guard isAt("-->") else { throw error("'--' inside a comment") }
        index += 3
    }

    private mutating func processingInstruction() throws(MetalinkError) {
        index += 2
        let target = try name()
        guard target.lowercased() != "xml" else { throw error("an XML declaration that is not at the start") }
        let start = currentLine()
        while !isAt("?>") {
            guard index < bytes.count else { throw error("the processing instruction of line \(start) never ends") }
            index += 1
        }
        index += 2
    }

    // MARK: Tokens

    /// A name: ASCII letters, digits, `_`, `:`, `-`, `.` and any non-ASCII character, not
    /// starting with a digit, `-` or `.`.
    private mutating func name() throws(MetalinkError) -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw error("expected a name") }
        let first = bytes[start]
        guard !(first >= 48 && first <= 57), first != UInt8(ascii: "-"), first != UInt8(ascii: ".") else {
            throw error("a name that starts with '\(Character(Unicode.Scalar(first)))'")
        }
        guard index - start <= limits.maxNameBytes else { throw error("a name longer than \(limits.maxNameBytes) bytes") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expect(_ byte: Character) throws(MetalinkError) {
        guard index < bytes.count, bytes[index] == byte.asciiValue else { throw error("expected '\(byte)'") }
        index += 1
    }

    /// Skips white space; whether there was any.
    @discardableResult
    private mutating func skipSpaces() -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    private func isAt(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { $0.elementsEqual(bytes[index..<index + count]) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 65...90, 97...122, 48...57, UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "."), 0x80...: true
        default: false
        }
    }

    /// XML 1.0's Char: TAB, LF, CR and the rest from U+0020, but U+FFFE and U+FFFF.
    private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 9, 10, 13, 0x20...0xFFFD, 0x10000...: true
        default: false
        }
    }

    // MARK: Errors

    /// The line of `index` (1-based), counting forward from the last line asked for.
    private mutating func currentLine() -> Int {
        let target = min(index, bytes.count)
        if target < countedIndex {
            countedIndex = 0
            countedLine = 1
        }
        countedLine += bytes[countedIndex..<target].count(where: { $0 == 10 })
        countedIndex = target
        return countedLine
    }

    private mutating func error(_ message: String) -> MetalinkError {
        MetalinkError(line: currentLine(), message)
    }
}
