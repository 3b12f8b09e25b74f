/// What Slipstream accepts as the URL of a download.
enum HTTPURL {
    /// Whether `url` starts with `http://` or `https://` (in any case).
    static func isAccepted(_ url: some StringProtocol) -> Bool {
        let start = url.prefix(8).lowercased()
        return start.hasPrefix("http://") || start.hasPrefix("https://")
    }
}
