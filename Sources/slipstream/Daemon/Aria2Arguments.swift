/// aria2's spelling of options, on the command line and in a conf file (aria2.conf), read into
/// one list of long names and values: `--name=value`, `--name value`, `-d DIR` (and `-dDIR`),
/// booleans as `--name` or `--name=true|false`; a conf file's lines are `name=value`, `#`
/// comments and blank lines. Pure: text in, options out.
struct Aria2Arguments: Equatable {
    /// One option: its long name (without `--`) and its value (`true` for a bare boolean).
    struct Option: Equatable {
        var name: String
        var value: String
    }

    var options: [Option] = []

    /// The options that take no value on the command line (a value may follow an `=`, as
    /// `--enable-rpc=false`).
    static let booleans: Set<String> = [
        "enable-rpc", "rpc-listen-all", "rpc-allow-origin-all", "continue", "quiet", "daemon", "rpc-secure",
        "check-certificate", "disable-ipv6", "enable-dht", "enable-dht6", "enable-peer-exchange", "follow-torrent",
        "allow-overwrite", "auto-file-renaming", "remote-time", "async-dns", "enable-http-pipelining",
        "rpc-save-upload-metadata", "force-save", "always-resume", "http-accept-gzip", "show-console-readout",
        "conditional-get", "check-integrity", "realtime-chunk-checksum", "enable-mmap", "content-disposition-default-utf8",
        "bt-enable-lpd", "bt-save-metadata", "bt-seed-unverified", "bt-remove-unselected-file", "human-readable",
        "truncate-console-readout", "deferred-input", "parameterized-uri", "dry-run", "no-netrc",
    ]

    /// aria2's short options and their long names.
    static let shortNames: [String: String] = [
        "-d": "dir", "-i": "input-file", "-j": "max-concurrent-downloads", "-x": "max-connection-per-server",
        "-s": "split", "-k": "min-split-size", "-c": "continue", "-q": "quiet", "-D": "daemon", "-l": "log",
    ]

    /// Reads command-line arguments.
    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("-"), argument != "-" else {
                throw UsageError("'\(argument)': the daemon takes options only; add URLs through its RPC or with -i FILE")
            }
            let name: String
            var value: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    value = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                }
            } else {
                let short = String(argument.prefix(2))
                guard let long = Self.shortNames[short] else { throw UsageError("unknown option \(short)") }
                name = long
                if argument.count > 2 { value = String(argument.dropFirst(2)) }
            }
            if value == nil {
                if Self.booleans.contains(name) {
                    // As aria2 (getopt's optional argument): a value only after `=`.
                    value = "true"
                } else {
                    guard let next = remaining.popFirst() else { throw UsageError("--\(name) needs a value") }
                    value = next
                }
            }
            options.append(Option(name: name, value: value ?? "true"))
        }
    }

    /// Reads a conf file's text; a line that is not `name=value` is an error naming it.
    init(confText text: String, path: String) throws(UsageError) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError("\(path) line \(index + 1): '\(line)' is not name=value")
            }
            let name = String(line[..<equals].trimmingSpaces())
            let value = String(line[line.index(after: equals)...].trimmingSpaces())
            guard !name.isEmpty else { throw UsageError("\(path) line \(index + 1): an option without a name") }
            options.append(Option(name: name, value: value))
        }
    }
}
