// Downloads one file over several connections, showing its progress; Ctrl-C cancels it (the
// .part file stays, and running it again resumes).
//   swift run DownloadFile URL [FOLDER]
import SlipstreamDownload

let arguments = CommandLine.arguments.dropFirst()
guard let url = arguments.first else { fatalError("usage: DownloadFile URL [FOLDER]") }
let folder = arguments.dropFirst().first ?? "."

// README: Downloader
var configuration = DownloadConfiguration()
configuration.connections = 8
let download = try Downloader(configuration: configuration).start(url, to: .folder(folder))

// Any number of tasks may read the events; each gets all of them.
let progress = Task {
    for await event in download.events {
        switch event {
        case .started(let info): print("writing \(info.path) (\(info.totalBytes ?? 0) bytes)")
        case .progress(let progress): print("\(progress.completedBytes) bytes, \(Int(progress.bytesPerSecond)) B/s")
        case .retrying(let error, let attempt, let delay): print("\(error.message); retry \(attempt) in \(delay)")
        default: break
        }
    }
}
do {
    let result = try await download.value
    print("saved \(result.path): \(result.bytes) bytes")
} catch {
    print("failed (\(error.code)): \(error.message)")
    if let file = error.resumableFile { print("run again to resume from \(file)") }
}
await progress.value
// README end
