import SlipstreamDownload

extension DownloadConfiguration {
    /// For a server whose responses wait at a gate (`TestHTTPServer.Response.holdAfter`): a held
    /// connection is neither stalled (no stall timeout) nor a straggler (none is dropped, nor its
    /// range split for an idle one, for crawling). Else a split range is asked again and its new
    /// response sends its first bytes before it waits, and so on: the download goes on past the
    /// gate, and ends while a test whose task waits for the Swift pool has not acted yet (seen in
    /// CI: a download finished before its pause, and the test waited for `.paused` for good).
    static var heldAtAGate: DownloadConfiguration {
        var configuration = DownloadConfiguration()
        configuration.stallTimeout = .seconds(3600)
        configuration.dropSlowConnections = false
        return configuration
    }
}
