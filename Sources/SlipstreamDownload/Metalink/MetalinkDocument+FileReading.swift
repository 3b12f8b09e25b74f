extension MetalinkDocument {
    /// One `<file>` being read, in either format: its name checked, its hashes, pieces and
    /// URLs added one by one, and the whole checked at the end.
    struct FileReading {
        var file: File
        /// The line of the `<file>`.
        let line: Int
        /// Sources left aside (metaurls, BitTorrent URLs): a file with only those is refused.
        var otherSources = 0

        /// Starts reading `element`, whose name must be safe; its description, identity and
        /// version read at once.
        init(element: XMLElement, namespace: String?) throws(MetalinkError) {
            line = element.line
            guard let name = element.attribute("name") else { throw MetalinkError(line: line, "a <file> with no name") }
            if let refusal = MetalinkDocument.refusal(ofName: name) {
                throw MetalinkError(line: line, "the file name '\(name.debugDescription.dropFirst().dropLast())' is refused: \(refusal)")
            }
            file = File(name: name, urls: [])
            file.identity = try MetalinkDocument.single("identity", in: element, namespace: namespace).flatMap {
                MetalinkDocument.trimmed($0.text)
            }
            file.version = try MetalinkDocument.single("version", in: element, namespace: namespace).flatMap {
                MetalinkDocument.trimmed($0.text)
            }
            file.description = try MetalinkDocument.single("description", in: element, namespace: namespace).flatMap {
                MetalinkDocument.trimmed($0.text)
            }
        }

        /// Adds a whole-file digest; the same one twice is kept once, two different ones of
        /// one algorithm are refused (which would be checked?).
        mutating func add(_ hash: Hash) throws(MetalinkError) {
            if let known = file.hashes.first(where: { $0.algorithm == hash.algorithm }) {
                guard known.hex == hash.hex else {
                    throw MetalinkError(line: line, "two different \(hash.algorithm) hashes for '\(file.name)'")
                }
                return
            }
            guard file.hashes.count < 32 else { throw MetalinkError(line: line, "more than 32 hash types for '\(file.name)'") }
            file.hashes.append(hash)
        }

        /// Reads each `<pieces>` (its hash elements found by `hashes`) and keeps the strongest
        /// the downloader can check.
        mutating func addPieces(
            _ elements: [XMLElement], hashes: (XMLElement) throws(MetalinkError) -> [XMLElement]
        ) throws(MetalinkError) {
            for element in elements {
                guard let length = Int64(decimalDigits: Substring(MetalinkDocument.trimmed(element.attribute("length") ?? "") ?? "")),
                    length > 0
                else {
                    throw MetalinkError(
                        line: element.line, "the piece length '\(element.attribute("length") ?? "")' is not a number of bytes")
                }
                guard element.attribute("type") != nil else { throw MetalinkError(line: element.line, "a <pieces> with no type") }
                var pieces = Pieces(length: length, algorithm: "", hashes: [])
                for hash in try hashes(element) {
                    let read = try MetalinkDocument.hash(element.attribute("type"), hash.text, line: hash.line)
                    pieces.algorithm = read.algorithm
                    pieces.hashes.append(read.hex)
                }
                guard !pieces.hashes.isEmpty else { throw MetalinkError(line: element.line, "a <pieces> with no hash") }
                if let kept = file.pieces, Self.rank(kept.algorithm) <= Self.rank(pieces.algorithm) { continue }
                file.pieces = pieces
            }
        }

        /// How much the downloader prefers piece digests of `algorithm` (0 best).
        private static func rank(_ algorithm: String) -> Int {
            ["sha-256", "sha-1", "md5"].firstIndex(of: algorithm) ?? 3
        }

        /// Adds the URL in `element`'s text.
        mutating func addURL(_ element: XMLElement, priority: Int?, location: String?) throws(MetalinkError) {
            guard let url = MetalinkDocument.trimmed(element.text) else { throw MetalinkError(line: element.line, "an empty <url>") }
            guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw MetalinkError(
                    line: element.line, "the URL '\(url.debugDescription.dropFirst().dropLast())' has white space or control characters")
            }
            file.urls.append(URL(url: url, priority: priority, location: location))
        }

        /// The file, URLs ordered best first, once it proves whole: a URL to fetch, piece
        /// digests that cover its size.
        mutating func finish() throws(MetalinkError) -> (File, line: Int) {
            guard !file.urls.isEmpty else {
                throw MetalinkError(
                    line: line,
                    otherSources > 0
                        ? "'\(file.name)' is only offered by metaurl or BitTorrent, which slipstream does not fetch"
                        : "'\(file.name)' has no <url>")
            }
            // A stable sort: document order among equal priorities.
            file.urls = file.urls.enumerated().sorted { a, b in
                (a.element.priority ?? Int.max, a.offset) < (b.element.priority ?? Int.max, b.offset)
            }.map(\.element)
            if let pieces = file.pieces, let size = file.size {
                let count = size == 0 ? 0 : (size - 1) / pieces.length + 1
                guard pieces.hashes.count == count else {
                    throw MetalinkError(
                        line: line,
                        "'\(file.name)' has \(pieces.hashes.count) piece hashes of \(pieces.length) bytes for \(size) bytes, not \(count)")
                }
            }
            return (file, line)
        }
    }

    /// Why `name` is not a safe place to save a file (RFC 5854 §4.1.2.1: a relative path with
    /// no directory traversal), or nil when it is.
    static func refusal(ofName name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > 4096 { return "it is longer than 4096 bytes" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "it has control characters"
        }
        if name.utf8.contains(UInt8(ascii: "\\")) { return "it has a backslash" }
        if name.hasPrefix("/") { return "it is an absolute path" }
        for component in name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.elementsEqual("..".utf8) { return "it has a '..' component (directory traversal)" }
            if component.isEmpty || component.elementsEqual(".".utf8) { return "it has an empty or '.' component" }
            if component.count > 255 { return "a component is longer than 255 bytes" }
        }
        return nil
    }
}
