// Downloads every URL given, at most three at a time, and waits for all of them.
//   swift run DownloadMany URL...
import SlipstreamDownload

let urls = Array(CommandLine.arguments.dropFirst())

// README: DownloadQueue
var configuration = DownloadQueue.Configuration()
configuration.maxConcurrentDownloads = 3
let queue = DownloadQueue(configuration: configuration)
// The queue's events never end by themselves: read them in a task, cancel it when done. A
// reader that starts late first gets where each download is.
let report = Task {
    for await event in queue.events() {
        if case .started(let id, let info) = event { print("\(id) writes \(info.path)") }
    }
}
for url in urls {
    // A second download to a file the queue already writes is refused here (`.output`).
    try queue.add(.init(url: url, destination: .folder("."), headers: ["Accept-Language": "en"]))
}
// Once every download has ended: each one's result or error (the queue keeps the last 1,000).
for outcome in try await queue.waitUntilIdle() {
    switch outcome.result {
    case .success(let result): print("\(outcome.id) saved \(result.path)")
    case .failure(let error): print("\(outcome.id) failed: \(error.message)")
    }
}
report.cancel()
await report.value
// README end
