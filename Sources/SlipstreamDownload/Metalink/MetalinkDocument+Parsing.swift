import SlipstreamCore

extension MetalinkDocument {
    /// Reads a Metalink 4 or Metalink 3 document (told by the root's namespace or its
    /// `version="3.0"`); throws, naming the line, for one that is not well formed, is not a
    /// Metalink, or says something unsafe or wrong (see the type's documentation).
    public static func parse(_ bytes: [UInt8]) throws(MetalinkError) -> MetalinkDocument {
        let root = try XMLReader.parse(bytes)
        guard root.name == "metalink" else {
            throw MetalinkError(line: root.line, "<\(root.name)> is not a Metalink document's root (<metalink>)")
        }
        if root.namespace == namespace {
            return try parse4(root)
        }
        if root.namespace == namespace3 || (root.namespace == nil && root.attribute("version")?.hasPrefix("3.") == true) {
            return try parse3(root)
        }
        throw MetalinkError(
            line: root.line,
            "<metalink> in the namespace '\(root.namespace ?? "")', not Metalink 4's '\(namespace)' nor Metalink 3's")
    }

    // MARK: Metalink 4

    private static func parse4(_ root: XMLElement) throws(MetalinkError) -> MetalinkDocument {
        var document = MetalinkDocument(format: .metalink4, files: [])
        var names: Set<String> = []
        document.generator = try text(of: "generator", in: root, namespace: namespace)
        document.published = try text(of: "published", in: root, namespace: namespace)
        document.updated = try text(of: "updated", in: root, namespace: namespace)
        if let origin = try single("origin", in: root, namespace: namespace) {
            document.origin = trimmed(origin.text)
            switch origin.attribute("dynamic") {
            case nil, "false": document.isDynamic = false
            case "true": document.isDynamic = true
            case let other?: throw MetalinkError(line: origin.line, "dynamic=\"\(other)\" is not true or false")
            }
        }
        for element in root.children("file", in: namespace) {
            var reading = try FileReading(element: element, namespace: namespace)
            reading.file.size = try size(in: element, namespace: namespace)
            for hash in element.children("hash", in: namespace) {
                try reading.add(try self.hash(hash.attribute("type"), hash.text, line: hash.line))
            }
            try reading.addPieces(element.children("pieces", in: namespace)) { piece in piece.children("hash", in: namespace) }
            for url in element.children("url", in: namespace) {
                let priority = try number(url.attribute("priority"), in: 1...999_999, of: "priority", line: url.line)
                try reading.addURL(url, priority: priority, location: url.attribute("location"))
            }
            reading.otherSources = element.children("metaurl", in: namespace).count
            try document.add(try reading.finish(), names: &names)
        }
        guard !document.files.isEmpty else { throw MetalinkError(line: root.line, "a Metalink with no <file>") }
        return document
    }

    // MARK: Metalink 3

    private static func parse3(_ root: XMLElement) throws(MetalinkError) -> MetalinkDocument {
        let ns = root.namespace
        var document = MetalinkDocument(format: .metalink3, files: [])
        var names: Set<String> = []
        document.generator = root.attribute("generator").flatMap { trimmed($0) }
        document.origin = root.attribute("origin").flatMap { trimmed($0) }
        document.isDynamic = root.attribute("type") == "dynamic"
        document.published = root.attribute("pubdate").flatMap { trimmed($0) }
        document.updated = root.attribute("refreshdate").flatMap { trimmed($0) }
        for files in root.children("files", in: ns) {
            for element in files.children("file", in: ns) {
                var reading = try FileReading(element: element, namespace: ns)
                reading.file.size = try size(in: element, namespace: ns)
                for verification in element.children("verification", in: ns) {
                    for hash in verification.children("hash", in: ns) {
                        try reading.add(try self.hash(hash.attribute("type"), hash.text, line: hash.line))
                    }
                    try reading.addPieces(verification.children("pieces", in: ns)) { pieces throws(MetalinkError) in
                        // Metalink 3 numbers its pieces: put them in that order.
                        var numbered: [(Int, XMLElement)] = []
                        for hash in pieces.children("hash", in: ns) {
                            let piece = try number(hash.attribute("piece"), in: 0...Int(Int32.max), of: "piece", line: hash.line)
                            numbered.append((piece ?? numbered.count, hash))
                        }
                        numbered.sort { $0.0 < $1.0 }
                        guard numbered.map(\.0) == Array(numbered.indices) else {
                            throw MetalinkError(line: pieces.line, "the pieces are not numbered 0, 1, 2 ...")
                        }
                        return numbered.map(\.1)
                    }
                }
                for resources in element.children("resources", in: ns) {
                    for url in resources.children("url", in: ns) {
                        if url.attribute("type")?.lowercased() == "bittorrent" {
                            reading.otherSources += 1
                            continue
                        }
                        let preference = try number(url.attribute("preference"), in: 0...100, of: "preference", line: url.line)
                        try reading.addURL(url, priority: preference.map { 101 - $0 }, location: url.attribute("location"))
                    }
                }
                try document.add(try reading.finish(), names: &names)
            }
        }
        guard !document.files.isEmpty else { throw MetalinkError(line: root.line, "a Metalink with no <file>") }
        return document
    }

    // MARK: Shared

    /// Adds `file`, unless another has its name (`names` holds those added so far).
    private mutating func add(_ file: (File, line: Int), names: inout Set<String>) throws(MetalinkError) {
        guard names.insert(file.0.name).inserted else {
            throw MetalinkError(line: file.line, "two files named '\(file.0.name)'")
        }
        files.append(file.0)
    }

    /// The `<size>` of a file, if it has one.
    private static func size(in file: XMLElement, namespace: String?) throws(MetalinkError) -> Int64? {
        guard let element = try single("size", in: file, namespace: namespace) else { return nil }
        guard let size = Int64(decimalDigits: Substring(trimmed(element.text) ?? "")) else {
            throw MetalinkError(line: element.line, "the size '\(element.text)' is not a number of bytes")
        }
        return size
    }

    /// A whole-file or piece digest: the algorithm named as IANA does, the hex checked.
    static func hash(_ type: String?, _ text: String, line: Int) throws(MetalinkError) -> Hash {
        guard let type = type.flatMap({ trimmed($0) })?.lowercased() else { throw MetalinkError(line: line, "a <hash> with no type") }
        // Metalink 3 wrote the names without the dash.
        let aliases = ["sha1": "sha-1", "sha224": "sha-224", "sha256": "sha-256", "sha384": "sha-384", "sha512": "sha-512"]
        let algorithm = aliases[type] ?? type
        guard algorithm.utf8.count <= 32, algorithm.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 })
        else { throw MetalinkError(line: line, "the hash type '\(type)' is not a name") }
        let hex = (trimmed(text) ?? "").lowercased()
        let lengths = ["md5": 32, "sha-1": 40, "sha-224": 56, "sha-256": 64, "sha-384": 96, "sha-512": 128]
        guard !hex.isEmpty, hex.utf8.count % 2 == 0, hex.utf8.count <= 256,
            hex.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }),
            lengths[algorithm].map({ $0 == hex.utf8.count }) ?? true
        else {
            let wanted = lengths[algorithm].map { "\($0) hex digits" } ?? "hex digits"
            throw MetalinkError(line: line, "the \(algorithm) hash '\(text)' is not \(wanted)")
        }
        return Hash(algorithm: algorithm, hex: hex)
    }

    /// An attribute that must be a whole number in `range`, when present.
    static func number(_ text: String?, in range: ClosedRange<Int>, of what: String, line: Int) throws(MetalinkError) -> Int? {
        guard let text else { return nil }
        guard let value = Int64(decimalDigits: Substring(trimmed(text) ?? "")), value >= range.lowerBound, value <= range.upperBound
        else { throw MetalinkError(line: line, "the \(what) '\(text)' is not a number from \(range.lowerBound) to \(range.upperBound)") }
        return Int(value)
    }

    /// The trimmed text of the one child `name` of `element`, nil when absent or empty.
    private static func text(of name: String, in element: XMLElement, namespace: String?) throws(MetalinkError) -> String? {
        try single(name, in: element, namespace: namespace).flatMap { trimmed($0.text) }
    }

    /// The child `name` of `element`; throws when there are two (the RFC allows one).
    static func single(_ name: String, in element: XMLElement, namespace: String?) throws(MetalinkError) -> XMLElement? {
        let found = element.children(name, in: namespace)
        guard found.count <= 1 else { throw MetalinkError(line: found[1].line, "a second <\(name)> in <\(element.name)>") }
        return found.first
    }

    /// `text` without the white space XML allows around it; nil when nothing is left.
    static func trimmed(_ text: String) -> String? {
        let isSpace: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return nil
        }
        return String(Substring(bytes[first...last]))
    }
}
