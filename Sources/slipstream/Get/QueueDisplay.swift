import SlipstreamDownload

/// How a queue of downloads looks on the terminal: a line per running download, a total line,
/// and the permanent lines of finished and failed downloads. Pure.
enum QueueDisplay {
    /// The totals the last status line shows.
    struct Totals: Equatable {
        var finished = 0
        var failed = 0
        var count = 0
        var running = 0
        var bytesPerSecond = 0.0
    }

    /// The file name a download is shown by: its file once known, else the URL's last segment.
    static func name(_ status: DownloadQueue.Status) -> String {
        let path = status.path ?? status.request.url.split(separator: "?").first.map(String.init) ?? status.request.url
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `big.iso   42%  420 MiB / 1.00 GiB  112 MiB/s  ETA 0:05  8 connections`, cut to `width`.
    static func line(_ status: DownloadQueue.Status, width: Int) -> String {
        let progress = status.progress.map(Formatting.progressLine) ?? "starting"
        return Formatting.fit(pad(name(status), to: 24) + "  " + progress, width: width)
    }

    /// `total: 12 of 200 done, 1 failed, 8 running  20.5 MiB/s`.
    static func totalLine(_ totals: Totals, width: Int) -> String {
        var text = "total: \(totals.finished) of \(totals.count) done"
        if totals.failed > 0 { text += ", \(totals.failed) failed" }
        text += ", \(totals.running) running  \(Formatting.speed(totals.bytesPerSecond))"
        return Formatting.fit(text, width: width)
    }

    /// The permanent line of a finished download: `saved a.iso: 1.00 GiB (12.0 MiB resumed)`.
    static func finishedLine(_ result: DownloadResult) -> String {
        if result.notModified { return Formatting.notModifiedLine(result) }
        let resumed = result.resumedBytes > 0 ? " (\(Formatting.bytes(result.resumedBytes)) resumed)" : ""
        return "saved \(result.path): \(Formatting.bytes(result.bytes))\(resumed)"
    }

    /// The closing summary of failures: a count, then one line each.
    static func failureSummary(_ failures: [String], of count: Int) -> [String] {
        let head = failures.count == 1 ? "1 of \(count) downloads failed:" : "\(failures.count) of \(count) downloads failed:"
        return [head] + failures.map { "  \($0)" }
    }

    private static func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? String(text.prefix(width - 1)) + "…" : text + String(repeating: " ", count: width - text.count)
    }
}
