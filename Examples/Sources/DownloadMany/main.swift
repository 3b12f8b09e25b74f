// Downloads every URL given, at most three at a time, and waits for all of them.
//   swift run DownloadMany URL...
import SlipstreamDownload

let urls = Array(CommandLine.arguments.dropFirst())

// README: DownloadQueue
var configuration = DownloadQueue.Configuration()
configuration.maxConcurrentDownloads = 3
let queue = DownloadQueue(configuration: configuration)
// The queue's events never end by themselves: read them in a task, cancel it when done.
let report = Task {
    for await event in queue.events() {
        switch event {
        case .finished(let id, let result): print("\(id) saved \(result.path)")
        case .failed(let id, let error): print("\(id) failed: \(error.message)")
        default: break
        }
    }
}
for url in urls {
    try queue.add(.init(url: url, destination: .folder(".")))
}
try await queue.waitUntilIdle()
report.cancel()
await report.value
// README end
