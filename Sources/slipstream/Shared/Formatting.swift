import SlipstreamCore
import SlipstreamDownload

/// How sizes, speeds, durations and progress look on the terminal. Pure.
enum Formatting {
    /// `0 B`, `1023 B`, `1.0 KiB`, `12.3 MiB`, `1.00 GiB`.
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return fixed(value, places: value >= 100 ? 0 : (value >= 10 ? 1 : 2)) + " " + units[unit]
    }

    /// Bits per second as `64 kbit/s`, `1.5 Mbit/s`.
    static func kilobits(_ bitsPerSecond: Int64) -> String {
        bitsPerSecond >= 1_000_000
            ? fixed(Double(bitsPerSecond) / 1e6, places: 1) + " Mbit/s" : fixed(Double(bitsPerSecond) / 1000, places: 0) + " kbit/s"
    }

    /// `value` rounded to `places` decimals (0 to 3), as `12.30`; no locale.
    static func fixed(_ value: Double, places: Int) -> String {
        let scale = [1.0, 10, 100, 1000][min(max(places, 0), 3)]
        let scaled = Int64(clamping: value * scale, rounding: .toNearestOrAwayFromZero)
        guard places > 0 else { return String(scaled) }
        let whole = String(scaled / Int64(scale))
        let fraction = String(abs(scaled % Int64(scale)))
        return whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }

    /// `text` as `Terminal.shown` makes it, cut to `width` columns (a character counted as
    /// one), so a line redrawn in place does not wrap.
    static func fit(_ text: String, width: Int) -> String {
        let text = Terminal.shown(text)
        return text.count <= width ? text : String(text.prefix(max(width - 1, 1)))
    }

    /// `12.3 MiB/s`.
    static func speed(_ bytesPerSecond: Double) -> String {
        bytes(Int64(clamping: bytesPerSecond, rounding: .toNearestOrAwayFromZero)) + "/s"
    }

    /// `0:07`, `12:05`, `1:02:03`; `--:--` when unknown.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let mmss = "\(minutes < 10 && hours > 0 ? "0" : "")\(minutes):\(secs < 10 ? "0" : "")\(secs)"
        return hours > 0 ? "\(hours):\(mmss)" : mmss
    }

    /// The status line: ` 42%  420 MiB / 1.00 GiB  112 MiB/s  ETA 0:05  8 connections`.
    static func progressLine(_ progress: DownloadProgress) -> String {
        var parts: [String] = []
        if let fraction = progress.fractionCompleted {
            let percent = String(Int64(clamping: fraction * 100, rounding: .down))
            parts.append(String(repeating: " ", count: max(0, 3 - percent.count)) + percent + "%")
            parts.append("\(bytes(progress.completedBytes)) / \(bytes(progress.totalBytes ?? 0))")
        } else {
            parts.append(bytes(progress.completedBytes))
        }
        parts.append(speed(progress.bytesPerSecond))
        if progress.totalBytes != nil { parts.append("ETA \(duration(progress.secondsRemaining))") }
        parts.append(progress.activeConnections == 1 ? "1 connection" : "\(progress.activeConnections) connections")
        return parts.joined(separator: "  ")
    }

    /// The line printed at the end: `saved big.iso: 1.00 GiB in 9.2 s (111 MiB/s), up to 8 connections`.
    /// The speed is that of this run: bytes received over its time (resumed bytes not counted).
    static func summary(_ result: DownloadResult, seconds: Double, connections: Int) -> String {
        if result.notModified { return notModifiedLine(result) }
        let rate = seconds > 0 ? Double(result.bytesReceived) / seconds : 0
        let how = result.segmented ? "up to \(connections) connections" : "1 connection (no ranges)"
        let resumed = result.resumedBytes > 0 ? " (\(bytes(result.resumedBytes)) resumed)" : ""
        let target = result.path == "-" ? "wrote standard output" : "saved \(result.path)"
        return "\(target): \(bytes(result.bytes))\(resumed) in \(fixed(seconds, places: 1)) s "
            + "(\(speed(rate))), \(how)"
    }

    /// The line of a download `-N` found unchanged on the server.
    static func notModifiedLine(_ result: DownloadResult) -> String {
        "\(result.path): not modified on the server; left as it is"
    }
}
