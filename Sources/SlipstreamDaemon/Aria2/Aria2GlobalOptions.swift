/// The daemon-wide options aria2's `getGlobalOption` tells and `changeGlobalOption` changes:
/// the queue's limits, and the defaults of new downloads.
public struct Aria2GlobalOptions: Sendable {
    /// Downloads running at once (aria2's `max-concurrent-downloads`, `-j`). Default 5.
    public var maxConcurrentDownloads = 5
    /// All downloads together, bytes per second; 0 for none (`max-overall-download-limit`).
    public var maxOverallDownloadLimit: Int64 = 0
    /// The defaults of each new download (`split`, `max-connection-per-server`,
    /// `min-split-size`, `max-download-limit`, `user-agent`, `all-proxy`, ...).
    var defaults = Aria2Options()

    /// The defaults.
    public init() {}

    /// The defaults of new downloads that were set, by aria2's names, values as text.
    public var defaultOptions: [String: String] {
        Dictionary(defaults.pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Sets a default of new downloads from aria2's option `name` (as `-s`, `-x`, `-k` and
    /// `--max-download-limit` do on the command line); throws a message for a bad value.
    public mutating func setDownloadDefault(_ name: String, _ value: String) throws(RPCFailure.Kind) {
        try defaults.set(name, value)
    }
}
