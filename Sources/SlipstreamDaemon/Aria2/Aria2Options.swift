/// The options of one download, as aria2's `addUri`, `changeOption` and the session file give
/// them (aria2's names, values as strings), read and checked. Options that aria2 has but that
/// mean nothing here (BitTorrent's, `file-allocation`, ...) are taken and ignored, as aria2
/// ignores those that do not apply; a value that is not valid is refused, naming the option.
struct Aria2Options: Sendable, Equatable {
    var dir: String?
    var out: String?
    var headers: [(name: String, value: String)] = []
    var split: Int?
    var maxConnectionPerServer: Int?
    var minSplitSize: Int64?
    var checksum: Checksum?
    var maxDownloadLimit: Int64?
    var referer: String?
    var userAgent: String?
    var allProxy: String?
    var pause = false
    var gid: GID?

    /// The options this daemon acts on, by aria2's names.
    static let names = [
        "dir", "out", "header", "split", "max-connection-per-server", "min-split-size", "checksum", "max-download-limit",
        "referer", "user-agent", "all-proxy", "pause", "gid",
    ]

    /// No options: every one the daemon's default.
    init() {}

    /// Reads the options object of a call; throws for a value that is not valid.
    init(_ value: JSONValue?) throws(RPCFailure.Kind) {
        guard let value else { return }
        guard let members = value.members else { throw .failed("the options must be an object") }
        for (name, member) in members {
            if name == "header" {
                let lines = member.array?.compactMap(\.string) ?? member.string.map { [$0] } ?? []
                for line in lines { try addHeader(line) }
                continue
            }
            guard let text = member.string ?? member.integer.map(String.init) else {
                throw .failed("option \(name): the value must be a string")
            }
            try set(name, text)
        }
    }

    /// Reads options given as text (a session file's indented lines).
    init(pairs: [(key: String, value: String)]) throws(RPCFailure.Kind) {
        for (name, value) in pairs {
            if name == "header" { try addHeader(value) } else { try set(name, value) }
        }
    }

    private mutating func addHeader(_ line: String) throws(RPCFailure.Kind) {
        guard let colon = line.firstIndex(of: ":"), !line.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else {
            throw .failed("option header: '\(line)' is not 'Name: value'")
        }
        let name = String(line[..<colon].trimmingSpaces())
        guard !name.isEmpty else { throw .failed("option header: '\(line)' has no name") }
        headers.append((name, String(line[line.index(after: colon)...].trimmingSpaces())))
    }

    /// Sets one option from its text.
    mutating func set(_ name: String, _ text: String) throws(RPCFailure.Kind) {
        func bad() -> RPCFailure.Kind { .failed("option \(name): '\(text)' is not a valid value") }
        switch name {
        case "dir": dir = text
        case "out":
            do throws(DownloadFolderRefusal) {
                try DownloadFolder.check(out: text)
            } catch {
                throw .failed("option out: \(error)")
            }
            out = text
        case "split": split = try Aria2Value.integer(text, in: 1...64).orThrow(bad())
        case "max-connection-per-server": maxConnectionPerServer = try Aria2Value.integer(text, in: 1...64).orThrow(bad())
        case "min-split-size":
            let size = try Aria2Value.size(text).orThrow(bad())
            guard size >= 1 << 20, size <= 1 << 30 else { throw .failed("option min-split-size: '\(text)' is not within 1M-1024M") }
            minSplitSize = size
        case "checksum":
            guard let checksum = try? Checksum(parsing: text) else {
                throw .failed("option checksum: '\(text)' is not TYPE=DIGEST (sha-256, sha-1 or md5)")
            }
            self.checksum = checksum
        case "max-download-limit": maxDownloadLimit = try Aria2Value.size(text).orThrow(bad())
        case "referer": referer = try Self.checkedText(text, name)
        case "user-agent": userAgent = try Self.checkedText(text, name)
        case "all-proxy":
            // As aria2 writes it back: a proxy without a path gets "/".
            let proxy = try Self.checkedText(text, name)
            let afterScheme = proxy.split(separator: "://", maxSplits: 1).last ?? ""
            allProxy = proxy.isEmpty ? nil : afterScheme.contains("/") ? proxy : proxy + "/"
        case "pause": pause = try Aria2Value.bool(text).orThrow(bad())
        case "gid": gid = try GID(text).orThrow(bad())
        default: break
        }
    }

    private static func checkedText(_ text: String, _ name: String) throws(RPCFailure.Kind) -> String {
        guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .failed("option \(name) has a control character")
        }
        return text
    }

    /// The options given, by aria2's names, values as text (for `getOption` and the session).
    var pairs: [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        if let dir { pairs.append(("dir", dir)) }
        if let out { pairs.append(("out", out)) }
        for header in headers { pairs.append(("header", "\(header.name): \(header.value)")) }
        if let split { pairs.append(("split", String(split))) }
        if let maxConnectionPerServer { pairs.append(("max-connection-per-server", String(maxConnectionPerServer))) }
        if let minSplitSize { pairs.append(("min-split-size", String(minSplitSize))) }
        if let checksum { pairs.append(("checksum", Self.aria2Checksum(checksum))) }
        if let maxDownloadLimit { pairs.append(("max-download-limit", String(maxDownloadLimit))) }
        if let referer { pairs.append(("referer", referer)) }
        if let userAgent { pairs.append(("user-agent", userAgent)) }
        if let allProxy { pairs.append(("all-proxy", allProxy)) }
        return pairs
    }

    /// `sha-256=HEX`, as aria2 writes a checksum.
    static func aria2Checksum(_ checksum: Checksum) -> String {
        let text = checksum.description
        return switch checksum.algorithm {
        case .sha256: "sha-256" + text.dropFirst("sha256".count)
        case .sha1: "sha-1" + text.dropFirst("sha1".count)
        case .md5: text
        }
    }

    /// Later options replace these (`changeOption`): each one given replaces its value.
    mutating func merge(_ other: Aria2Options, given: [String]) {
        for name in given {
            switch name {
            case "dir": dir = other.dir
            case "out": out = other.out
            case "header": headers = other.headers
            case "split": split = other.split
            case "max-connection-per-server": maxConnectionPerServer = other.maxConnectionPerServer
            case "min-split-size": minSplitSize = other.minSplitSize
            case "checksum": checksum = other.checksum
            case "max-download-limit": maxDownloadLimit = other.maxDownloadLimit
            case "referer": referer = other.referer
            case "user-agent": userAgent = other.userAgent
            case "all-proxy": allProxy = other.allProxy
            default: break
            }
        }
    }

    static func == (lhs: Aria2Options, rhs: Aria2Options) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.key == $1.key && $0.value == $1.value } && lhs.pause == rhs.pause
            && lhs.gid == rhs.gid
    }
}

extension Optional {
    /// The value, or `error` thrown.
    func orThrow<Failure: Error>(_ error: @autoclosure () -> Failure) throws(Failure) -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
