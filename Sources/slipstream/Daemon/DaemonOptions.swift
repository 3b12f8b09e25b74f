#if canImport(Glibc)
import Glibc
#endif
import SlipstreamDaemon

/// What `slipstream daemon` was asked for, in aria2's option names, so that aria2's setups
/// and launchers work with the program's name changed.
struct DaemonOptions {
    var configuration = DownloadDaemon.Configuration(folder: ".")
    var inputFile: String?
    var quiet = false
    var help = false
    /// aria2 options given that mean nothing here: told once, in one line.
    var ignored: [String] = []

    static let usage = """
        Usage: slipstream daemon [options]     (aria2's option names; --enable-rpc is implied)

        A download service driven by aria2's JSON-RPC (AriaNg, aria2p, Motrix, browser
        extensions) at http://127.0.0.1:PORT/jsonrpc, with a page of its own at /.

        Options:
          --rpc-listen-port=PORT         the port (default 6800; 0 picks a free one)
          --rpc-secret=SECRET            the secret clients send as token:SECRET
          --rpc-listen-all               listen on every interface (needs --rpc-secret)
          --rpc-allow-origin-all         let pages of any origin call it (with the secret)
          --rpc-allow-origin=ORIGIN      let the page at ORIGIN (e.g. https://ariang.example) call it
          --rpc-max-request-size=SIZE    the largest request (default 2M)
          -d, --dir=DIR                  where downloads go; requests stay inside it (default .)
          -i, --input-file=FILE          downloads to add at start (a session file, aria2's syntax)
          --save-session=FILE            keep the downloads not ended in FILE, after every change
          --save-session-interval=SEC    also every SEC seconds (default 60; 0: changes only)
          -j, --max-concurrent-downloads=N    downloads at once (default 5)
          -s, --split=N                  connections per download (default 8)
          -x, --max-connection-per-server=N   connections to one server per download
          -k, --min-split-size=SIZE      the smallest range a connection takes (default 1M)
          --max-overall-download-limit=RATE   all downloads together (e.g. 10M; 0: none)
          --max-download-limit=RATE      each download (0: none)
          --user-agent=TEXT, --all-proxy=URL, --header="Name: value"
          --conf-path=FILE               read options from FILE first (aria2.conf syntax)
          -c, --continue                 accepted: downloads always resume
          -q, --quiet                    print nothing but errors
          -h, --help

        Stops cleanly on SIGTERM or SIGINT (part files and session kept), or on aria2.shutdown.
        """

    /// Reads the arguments (and the conf file they name, first).
    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        if arguments.contains("-h") || arguments.contains("--help") {
            options.help = true
            return options
        }
        options.configuration.server.maxBodyBytes = 2 << 20
        let given = try Aria2Arguments(arguments: arguments)
        if let conf = given.options.last(where: { $0.name == "conf-path" })?.value {
            let text = try readConf(conf)
            for option in try Aria2Arguments(confText: text, path: conf).options {
                try options.apply(option, from: "\(conf): ")
            }
        }
        for option in given.options { try options.apply(option, from: "") }
        return options
    }

    private static func readConf(_ path: String) throws(UsageError) -> String {
        guard let file = fopen(path, "r") else { throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[..<count]
            guard bytes.count <= 1 << 20 else { throw UsageError("\(path) is larger than 1 MiB: not a conf file") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func apply(_ option: Aria2Arguments.Option, from origin: String) throws(UsageError) {
        let name = option.name
        let value = option.value
        func bool() throws(UsageError) -> Bool {
            switch value {
            case "true": return true
            case "false": return false
            default: throw UsageError("\(origin)--\(name) is true or false, not '\(value)'")
            }
        }
        func integer(_ range: ClosedRange<Int>) throws(UsageError) -> Int {
            try CommandLineArguments.integer(value, for: "\(origin)--\(name)", in: range)
        }
        func size() throws(UsageError) -> Int64 {
            guard let size = Aria2Value.size(value) else {
                throw UsageError("\(origin)--\(name): '\(value)' is not a size (e.g. 500K, 10M)")
            }
            return size
        }
        switch name {
        case "enable-rpc", "continue": _ = try bool()
        case "conf-path": break
        case "rpc-listen-port": configuration.server.port = try integer(0...65535)
        case "rpc-secret": configuration.secret = value.isEmpty ? nil : value
        case "rpc-listen-all": configuration.server.listenAll = try bool()
        case "rpc-allow-origin-all": configuration.server.allowAnyOrigin = try bool()
        case "rpc-allow-origin": configuration.server.allowedOrigins.append(value)
        case "rpc-max-request-size": configuration.server.maxBodyBytes = Int(min(try size(), 64 << 20))
        case "dir": configuration.folder = value
        case "input-file": inputFile = value
        case "save-session": configuration.sessionPath = value.isEmpty ? nil : value
        case "save-session-interval":
            let seconds = try integer(0...86_400)
            configuration.sessionInterval = seconds == 0 ? nil : .seconds(seconds)
        case "max-concurrent-downloads": configuration.global.maxConcurrentDownloads = try integer(1...1000)
        case "max-overall-download-limit": configuration.global.maxOverallDownloadLimit = try size()
        case "quiet": quiet = try bool()
        case "daemon":
            if try bool() {
                throw UsageError("\(origin)--daemon: slipstream daemon stays in the foreground; run it under systemd (contrib/)")
            }
        case "rpc-secure", "rpc-certificate", "rpc-private-key":
            throw UsageError("\(origin)--\(name): TLS on the RPC port is not supported; put a TLS proxy in front, or keep it on loopback")
        case "split", "max-connection-per-server", "min-split-size", "max-download-limit", "user-agent", "all-proxy", "header",
            "referer", "checksum":
            do throws(RPCFailure.Kind) {
                try configuration.global.setDownloadDefault(name, value)
            } catch {
                throw UsageError("\(origin)--\(error.message)")
            }
        default:
            guard DaemonOptions.meaningless.contains(name) || name.hasPrefix("bt-") || name.hasPrefix("seed-") else {
                throw UsageError("\(origin)unknown option --\(name) (see slipstream daemon --help)")
            }
            if !ignored.contains(name) { ignored.append(name) }
        }
    }

    /// aria2 options accepted and ignored (with one warning): they mean nothing here.
    static let meaningless: Set<String> = [
        "file-allocation", "disk-cache", "log", "log-level", "console-log-level", "summary-interval", "disable-ipv6",
        "check-certificate", "enable-dht", "enable-dht6", "enable-peer-exchange", "follow-torrent", "follow-metalink",
        "rpc-save-upload-metadata", "auto-save-interval", "allow-overwrite", "auto-file-renaming", "max-tries",
        "retry-wait", "timeout", "connect-timeout", "async-dns", "event-poll", "enable-http-pipelining", "force-save",
        "always-resume", "max-resume-failure-tries", "http-accept-gzip", "show-console-readout", "human-readable",
        "truncate-console-readout", "listen-port", "dht-listen-port", "dht-file-path", "dht-file-path6",
        "max-download-result", "keep-unfinished-download-result", "content-disposition-default-utf8", "remote-time",
        "conditional-get", "check-integrity", "realtime-chunk-checksum", "enable-mmap", "lowest-speed-limit",
        "max-file-not-found", "piece-length", "stream-piece-selector", "uri-selector", "min-tls-version",
        "no-netrc", "optimize-concurrent-downloads", "save-not-found", "reuse-uri", "deferred-input",
    ]

}
