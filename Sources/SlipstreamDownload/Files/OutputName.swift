/// Chooses a safe local file name for a download from what the server and the URL say.
enum OutputName {
    /// The `Content-Disposition` name if it is usable, else the last segment of the URL's
    /// path (percent-decoded), else `index.html`. Never a path: separators, `.`/`..`,
    /// leading dots and control characters cannot come through.
    static func choose(contentDisposition: String?, url: String) -> String {
        if let name = contentDisposition.flatMap(sanitize) { return name }
        if let segment = lastPathSegment(of: url).flatMap(sanitize) { return segment }
        return "index.html"
    }

    /// The last segment of the URL's path, percent-decoded (sanitising takes care of any `/`
    /// that decoding produced); nil when the path is empty or ends with `/`, or a `%` escape is
    /// broken. Read as bytes: a queue asks this of every one of its many URLs.
    static func lastPathSegment(of url: String) -> String? {
        let bytes = Array(url.utf8)
        let slash = UInt8(ascii: "/"), query = UInt8(ascii: "?"), fragment = UInt8(ascii: "#")
        // The path starts at the first `/` after `scheme://` and ends at `?` or `#`.
        guard
            let scheme = bytes.indices.dropLast(2).first(where: {
                bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == slash && bytes[$0 + 2] == slash
            })
        else { return nil }
        let rest = bytes[(scheme + 3)...]
        guard let pathStart = rest.firstIndex(where: { $0 == slash || $0 == query || $0 == fragment }),
            bytes[pathStart] == slash
        else { return nil }
        let pathEnd = bytes[pathStart...].firstIndex(where: { $0 == query || $0 == fragment }) ?? bytes.endIndex
        guard bytes[pathEnd - 1] != slash, let segmentStart = bytes[..<pathEnd].lastIndex(of: slash) else { return nil }
        return percentDecoded(bytes[(segmentStart + 1)..<pathEnd])
    }

    /// `%XX` escapes decoded, as UTF-8; nil for a broken escape.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func sanitize(_ raw: String) -> String? {
        if isPlain(raw) { return raw }
        // Only the last component of anything path-like, with either separator. Cut as Unicode
        // scalars, never as Characters: a "/" followed by a combining mark is one Character,
        // which a Character-based split would keep whole, "/" and all.
        let last = raw.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? Substring().unicodeScalars
        var scalars = String.UnicodeScalarView(last.filter { $0.value >= 0x20 && $0.value != 0x7F })
        // Dots and spaces in any order: " .x" must not become ".x" (hidden) nor " .. " "..".
        while scalars.first == "." || scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        let name = String(scalars)
        guard !name.isEmpty, name.utf8.count <= 255 else { return nil }
        return name
    }

    /// Whether `name` is already safe as it is (the usual case, told apart as bytes): printable
    /// ASCII with no separator, not starting with a dot or a space nor ending with a space, and
    /// of at most 255 bytes.
    private static func isPlain(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 255,
            first != UInt8(ascii: "."), first != UInt8(ascii: " "), last != UInt8(ascii: " ")
        else { return false }
        return bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }
    }
}
