// A download service that aria2's clients drive: `swift run RunDaemon FOLDER SECRET`, then point
// AriaNg, aria2p or a browser extension at http://127.0.0.1:6800/jsonrpc with the secret, or
// open http://127.0.0.1:6800/ for its own page. Ctrl-C stops it, keeping the session.
import SlipstreamDaemon

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: RunDaemon FOLDER SECRET")
    exit(2)
}
let downloads = arguments[1]
let secret = arguments[2]

// README: RunDaemon
var configuration = DownloadDaemon.Configuration(folder: downloads)
configuration.secret = secret
configuration.sessionPath = downloads + "/.slipstream-session"
configuration.global.maxConcurrentDownloads = 3
let daemon = try DownloadDaemon(configuration: configuration)
if let saved = try? DownloadDaemon.readList(downloads + "/.slipstream-session") {
    for problem in daemon.restore(saved) { print("not restored: \(problem)") }
}
print("aria2 JSON-RPC at http://127.0.0.1:\(daemon.port)/jsonrpc, its page at /")
await daemon.run()  // until aria2.shutdown, daemon.shutdown() or the task's cancellation
// README end
