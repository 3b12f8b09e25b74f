/// How an `HLSDownloader` downloads a stream. Every setting has a documented default.
public struct HLSDownloadConfiguration: Sendable {
    /// Which variant of a master playlist is downloaded. Default: the one the player chooses
    /// (see `HLSVariantSelection`).
    public var variant = HLSVariantSelection()
    /// Resources (segment files, init sections, keys) downloaded at once at most (at least 1).
    /// Default 8.
    public var maxConcurrentDownloads = 8
    /// Connections to one host at once at most, over all resources (at least 1). Default 16.
    public var connectionsPerHost = 16
    /// The settings of every request, for the playlists and for each resource: headers, login,
    /// proxy, timeouts, retries, rate limits, connections per resource. The login goes to the
    /// playlist's server only, not to the hosts its segments name, unless `loginOrigins` says
    /// otherwise. `overwrite` replaces a file already at the output's path; `resume` (on by
    /// default) carries on from the part folder an interrupted download left (off: it starts
    /// over). `checksum` and `mirrors` are not used (they are a single file's).
    public var download = DownloadConfiguration()

    /// The defaults.
    public init() {}
}
