/// aria2's notifications, sent to every WebSocket client as JSON-RPC notifications (no id):
/// `{"jsonrpc":"2.0","method":"aria2.onDownloadStart","params":[{"gid":"..."}]}`.
enum Aria2Notification: String, CaseIterable {
    case start = "aria2.onDownloadStart"
    case pause = "aria2.onDownloadPause"
    case stop = "aria2.onDownloadStop"
    case complete = "aria2.onDownloadComplete"
    case error = "aria2.onDownloadError"

    /// Every notification's name, as `system.listNotifications` gives them.
    static let names = [
        "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop", "aria2.onDownloadComplete",
        "aria2.onDownloadError", "aria2.onBtDownloadComplete",
    ]

    /// The notification's text for `gid`.
    func text(_ gid: GID) -> [UInt8] {
        JSONValue.object([
            ("jsonrpc", "2.0"), ("method", .string(rawValue)), ("params", [["gid": .string(gid.description)]]),
        ]).jsonBytes
    }
}
