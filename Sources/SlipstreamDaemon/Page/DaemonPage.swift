/// The daemon's own page: one HTML file, its script and its style sheet, shipped in the binary
/// and served from memory. Nothing is loaded from elsewhere and there is no build step: the
/// texts are the files, as written. The script speaks aria2's JSON-RPC over the WebSocket at
/// `/jsonrpc` of the origin that served it, so the server's Content-Security-Policy can allow
/// only `'self'`.
public enum DaemonPage {
    /// The page's files: the path each is served at, its `Content-Type`, and its text.
    public static let files: [(path: String, contentType: String, text: String)] = [
        ("/", "text/html; charset=utf-8", html),
        ("/app.js", "text/javascript; charset=utf-8", script),
        ("/app.css", "text/css; charset=utf-8", styleSheet),
    ]
}
