/// The daemon's page (placeholder until the page lands).
enum DaemonPage {
    static let files: [(path: String, contentType: String, text: String)] = [
        ("/", "text/html; charset=utf-8", "<!doctype html><title>slipstream</title>")
    ]
}
