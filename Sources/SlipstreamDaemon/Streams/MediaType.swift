/// The `Content-Type` a streamed file is served with, from its name's extension. Audio and
/// video only: anything else is `application/octet-stream`, so that no file of a download is
/// ever run by a browser as a page or a script of the daemon's origin.
enum MediaType {
    /// The types of the extensions (lower-case) served as media.
    static let types: [String: String] = [
        "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "weba": "audio/webm", "mka": "audio/x-matroska",
        "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm", "mkv": "video/x-matroska", "ogv": "video/ogg",
        "mov": "video/quicktime",
    ]

    /// The type of a file named `name` (a path's last component is enough).
    static func of(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return "application/octet-stream" }
        return types[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
