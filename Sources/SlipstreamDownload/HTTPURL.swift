/// What Slipstream accepts as the URL of a download.
enum HTTPURL {
    /// Whether `url` starts with `http://`, `https://`, `ftp://`, `ftps://` or `sftp://` (in any case).
    static func isAccepted(_ url: some StringProtocol) -> Bool {
        let start = url.prefix(8).lowercased()
        return ["http://", "https://", "ftp://", "ftps://", "sftp://"].contains { start.hasPrefix($0) }
    }

    /// What is said of a URL that is not accepted.
    static let refusal = "not an http, https, ftp, ftps or sftp URL"
}
