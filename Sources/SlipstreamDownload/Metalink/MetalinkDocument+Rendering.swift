extension MetalinkDocument {
    /// The document as Metalink 4 (RFC 5854), whichever format it was read from: what
    /// `parse` reads back as the same document (but for `format`).
    public func render() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"\(Self.namespace)\">\n"
        func element(_ name: String, _ text: String?, indent: String = "  ", attributes: [(String, String?)] = []) {
            guard let text else { return }
            out += "\(indent)<\(name)"
            for case (let key, let value?) in attributes { out += " \(key)=\"\(Self.escaped(value, attribute: true))\"" }
            out += ">\(Self.escaped(text, attribute: false))</\(name)>\n"
        }
        element("generator", generator)
        if origin != nil || isDynamic { element("origin", origin ?? "", attributes: [("dynamic", isDynamic ? "true" : nil)]) }
        element("published", published)
        element("updated", updated)
        for file in files {
            out += "  <file name=\"\(Self.escaped(file.name, attribute: true))\">\n"
            element("identity", file.identity, indent: "    ")
            element("version", file.version, indent: "    ")
            element("description", file.description, indent: "    ")
            element("size", file.size.map { String($0) }, indent: "    ")
            for hash in file.hashes { element("hash", hash.hex, indent: "    ", attributes: [("type", hash.algorithm)]) }
            if let pieces = file.pieces {
                out += "    <pieces length=\"\(pieces.length)\" type=\"\(Self.escaped(pieces.algorithm, attribute: true))\">\n"
                for hash in pieces.hashes { element("hash", hash, indent: "      ") }
                out += "    </pieces>\n"
            }
            for url in file.urls {
                element(
                    "url", url.url, indent: "    ", attributes: [("priority", url.priority.map { String($0) }), ("location", url.location)])
            }
            out += "  </file>\n"
        }
        return out + "</metalink>\n"
    }

    /// `text` with what XML would misread written as references: `&`, `<`, `>`, CR (which a
    /// reader makes LF), and in an attribute also `"`, TAB and LF (which it makes spaces).
    private static func escaped(_ text: String, attribute: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where attribute: out += "&quot;"
            case "\t" where attribute: out += "&#9;"
            case "\n" where attribute: out += "&#10;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
