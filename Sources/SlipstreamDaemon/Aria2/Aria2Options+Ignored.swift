extension Aria2Options {
    /// aria2 options that mean nothing here (BitTorrent's, allocation, logging, checks this
    /// downloader always does): taken from requests and files, and ignored. Anything else
    /// unknown in a session or input file is refused.
    static let ignored: Set<String> = [
        "continue", "file-allocation", "allow-overwrite", "auto-file-renaming", "max-tries", "retry-wait",
        "connect-timeout", "timeout", "lowest-speed-limit", "check-integrity", "remote-time", "conditional-get",
        "parameterized-uri", "follow-torrent", "follow-metalink", "seed-time", "seed-ratio", "always-resume",
        "max-resume-failure-tries", "http-accept-gzip", "enable-http-pipelining", "stream-piece-selector",
        "uri-selector", "piece-length", "no-netrc", "check-certificate", "realtime-chunk-checksum", "async-dns",
        "disable-ipv6", "min-tls-version", "bt-enable-lpd", "bt-max-peers", "bt-request-peer-speed-limit",
        "bt-remove-unselected-file", "bt-save-metadata", "bt-seed-unverified", "bt-tracker", "bt-exclude-tracker",
        "enable-dht", "enable-peer-exchange", "select-file", "index-out", "force-save", "metalink-preferred-protocol",
        "metalink-enable-unique-protocol", "proxy-method", "reuse-uri", "remove-control-file", "dry-run",
        "hash-check-only", "realtime-chunk-checksum", "max-file-not-found", "http-no-cache", "save-not-found",
        "content-disposition-default-utf8", "enable-mmap", "max-mmap-limit", "no-want-digest-header",
    ]

    /// The options a daemon's session file (or an aria2 input file) may hold.
    static let sessionKeys = Set(names).union(ignored)
}
