/// The text format of a list of downloads: what `slipstream get -i FILE` reads, and what a
/// download queue's session file holds (the same format, so a session is also an input
/// file). Pure: text in, entries out, and back.
///
/// ```
/// # a comment
/// https://example.test/a.iso
///   out=b.iso
///   checksum=sha256=9f86d0...
/// https://one.test/c.iso<TAB>https://two.test/c.iso
///   dir=downloads
/// ```
///
/// One download per line that does not start with a space or a TAB: its URL, or several
/// TAB-separated URLs of one file (the first is the download's URL, the others its mirrors).
/// Indented `key=value` lines after it set its options: `out=` (file name), `dir=` (folder),
/// `checksum=ALG=HEX`, `state=paused`. Blank lines and lines starting with `#` are ignored.
///
/// A session file starts with `# slipstream session 1` and ends with `# end of session: N
/// downloads`, so that a damaged or cut-short session is refused rather than half read.
public struct DownloadList: Sendable, Equatable {
    /// One download of the list.
    public struct Entry: Sendable, Equatable {
        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.urls == rhs.urls && lhs.out == rhs.out && lhs.dir == rhs.dir && lhs.checksum == rhs.checksum
                && lhs.paused == rhs.paused && lhs.line == rhs.line
                && lhs.options.elementsEqual(rhs.options) { $0.key == $1.key && $0.value == $1.value }
        }

        /// The URL, then its mirrors (at least one URL).
        public var urls: [String]
        /// The file name (`out=`), when given.
        public var out: String?
        /// The folder (`dir=`), when given.
        public var dir: String?
        /// The expected digest (`checksum=`), when given.
        public var checksum: Checksum?
        /// Whether it waits paused (`state=paused`).
        public var paused = false
        /// The line of its URL (1-based; 0 for an entry made in code).
        public var line = 0
        /// Other options, in order, as `key=value` lines: those the reader was told to keep
        /// (`parse(_:keeping:)`), such as aria2's `gid=` or `split=` in a daemon's session.
        public var options: [(key: String, value: String)] = []

        /// An entry for `urls` with the given options.
        public init(
            urls: [String], out: String? = nil, dir: String? = nil, checksum: Checksum? = nil,
            paused: Bool = false, line: Int = 0
        ) {
            self.urls = urls
            self.out = out
            self.dir = dir
            self.checksum = checksum
            self.paused = paused
            self.line = line
        }
    }

    /// A line that could not be read: its number and what is wrong.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line (1-based), 0 for the file as a whole.
        public var line: Int
        /// What is wrong.
        public var message: String

        /// `line N: message`.
        public var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    /// The first line of a session file.
    static let sessionHeader = "# slipstream session 1"
    /// The start of a session file's last line.
    static let sessionEnd = "# end of session: "

    /// The downloads, in order.
    public var entries: [Entry]
    /// Whether the list is a session (written by a download queue).
    public var isSession: Bool

    /// A list of `entries`.
    public init(entries: [Entry], isSession: Bool = false) {
        self.entries = entries
        self.isSession = isSession
    }

    /// Reads a list (a session when its first line says so). Options other than `out=`, `dir=`,
    /// `checksum=` and `state=` are refused, but for those named in `keeping` (lower case),
    /// which go into each entry's `options`.
    public static func parse(_ text: String, keeping: Set<String> = []) throws(ParseError) -> DownloadList {
        var list = DownloadList(entries: [])
        var sessionEndCount: Int?
        var number = 0
        // Lines are split as bytes (splitting Characters costs more than the rest of the
        // parse); a line ending in "\r\n" loses its "\r" too.
        for bytes in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = Substring(bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes)
            number += 1
            if number == 1, line == sessionHeader {
                list.isSession = true
                continue
            }
            if sessionEndCount != nil, !line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                throw ParseError(line: number, message: "text after the end of the session")
            }
            if list.isSession, line.hasPrefix(sessionEnd) {
                guard let count = Int(line.dropFirst(sessionEnd.count).prefix { $0 != " " }), count == list.entries.count
                else {
                    throw ParseError(
                        line: number,
                        message: "the session's end line does not match its \(list.entries.count) downloads; the file is damaged")
                }
                sessionEndCount = count
                continue
            }
            let trimmed = Substring(line.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
            if trimmed.isEmpty || trimmed.utf8.first == UInt8(ascii: "#") { continue }
            if trimmed.startIndex != line.startIndex {
                guard !list.entries.isEmpty else {
                    throw ParseError(line: number, message: "an option ('\(trimmed)') before any URL")
                }
                try apply(option: trimmed, line: number, keeping: keeping, to: &list.entries[list.entries.count - 1])
            } else {
                list.entries.append(try entry(urls: line, line: number))
            }
        }
        if list.isSession, sessionEndCount == nil {
            throw ParseError(line: 0, message: "the session has no end line; the file is cut short or damaged")
        }
        return list
    }

    /// The list as text: a session (with its first and last lines) when `isSession`.
    public func render() -> String {
        var text = isSession ? Self.sessionHeader + "\n" : ""
        for entry in entries {
            text += entry.urls.joined(separator: "\t") + "\n"
            if let out = entry.out { text += "  out=\(out)\n" }
            if let dir = entry.dir { text += "  dir=\(dir)\n" }
            if let checksum = entry.checksum { text += "  checksum=\(checksum)\n" }
            if entry.paused { text += "  state=paused\n" }
            for option in entry.options { text += "  \(option.key)=\(option.value)\n" }
        }
        if isSession { text += Self.sessionEnd + "\(entries.count) downloads\n" }
        return text
    }

    private static func entry(urls line: Substring, line number: Int) throws(ParseError) -> Entry {
        let urls = line.utf8.split(separator: UInt8(ascii: "\t")).map { String(Substring($0).trimmingSpaces()) }
            .filter { !$0.isEmpty }
        for url in urls {
            if let refusal = HTTPURL.refusal(of: url) ?? (url.utf8.contains(UInt8(ascii: " ")) ? HTTPURL.refusal : nil) {
                throw ParseError(line: number, message: "'\(url)' is \(refusal)")
            }
            try rejectControlCharacters(url, line: number)
        }
        return Entry(urls: urls, line: number)
    }

    /// A URL or a value with a control character (other than TAB) is refused: a carriage return
    /// or a NUL inside a line is damage, not part of a name, and one at the end of a value
    /// would not survive the list being written out and read back.
    private static func rejectControlCharacters(_ text: String, line number: Int) throws(ParseError) {
        guard text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else { return }
        // Shown escaped (as "\r", "\0"), without the quotes debugDescription adds.
        throw ParseError(line: number, message: "'\(text.debugDescription.dropFirst().dropLast())' has a control character")
    }

    private static func apply(option: Substring, line number: Int, keeping: Set<String>, to entry: inout Entry)
        throws(ParseError)
    {
        // The "=" is looked for among the bytes: followed by a combining mark it is another
        // Character, so `out= <U+0650>x` (the mark on the space) would be written out as an
        // option line that no longer reads back.
        guard let equals = option.utf8.firstIndex(of: UInt8(ascii: "=")) else {
            throw ParseError(line: number, message: "'\(option)' is not key=value (an indented line sets an option of the URL above)")
        }
        let key = option[..<equals].lowercased()
        let value = String(option[option.utf8.index(after: equals)...].trimmingSpaces())
        guard !value.isEmpty else { throw ParseError(line: number, message: "\(key)= needs a value") }
        try rejectControlCharacters(value, line: number)
        switch key {
        case "out":
            // As bytes: `contains("/")` compares Characters, and "/" with a combining mark after
            // it is another Character.
            guard !value.utf8.contains(UInt8(ascii: "/")) else {
                throw ParseError(line: number, message: "out= is a file name ('\(value)' has a /); use dir= for the folder")
            }
            entry.out = value
        case "dir":
            entry.dir = value
        case "checksum":
            guard let checksum = try? Checksum(parsing: value) else {
                throw ParseError(
                    line: number, message: "checksum= must look like sha256=HEX (or sha1=, md5=) with the full digest, not '\(value)'")
            }
            entry.checksum = checksum
        case "state":
            guard value == "paused" else { throw ParseError(line: number, message: "state= can only be 'paused', not '\(value)'") }
            entry.paused = true
        case _ where keeping.contains(key):
            entry.options.append((key, value))
        default:
            throw ParseError(line: number, message: "unknown option '\(key)' (out=, dir=, checksum=, state=)")
        }
    }
}
