import FoundationEssentials

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

    static func lastPathSegment(of url: String) -> String? {
        // `path` is percent-decoded; sanitising takes care of any `/` that decoding produced.
        guard let path = URLComponents(string: url)?.path, !path.hasSuffix("/"),
              let last = path.split(separator: "/").last
        else { return nil }
        return String(last)
    }

    static func sanitize(_ raw: String) -> String? {
        // Only the last component of anything path-like, with either separator.
        let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        while name.hasPrefix(".") { name.removeFirst() }
        while name.first == " " { name.removeFirst() }
        while name.last == " " { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 255 else { return nil }
        return name
    }
}
