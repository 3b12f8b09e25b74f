// Downloads an HLS stream that has ended into one file: its segments fetched several at once and
// joined in order, the variant of a master playlist chosen within a bit rate. Ctrl-C stops it:
// the part folder FILE.hls.part stays, and running it again fetches only what is missing.
//   swift run DownloadHLS URL.m3u8 FILE [MAX-BITS-PER-SECOND]
import SlipstreamDownload

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fatalError("usage: DownloadHLS URL.m3u8 FILE [MAX-BITS-PER-SECOND]") }
let (url, file) = (arguments[0], arguments[1])
let maximumBitRate = arguments.dropFirst(2).first.flatMap { Int64($0) }

// README: HLSDownloader
var configuration = HLSDownloadConfiguration()
configuration.variant = HLSVariantSelection(maximumBitRate: maximumBitRate)
configuration.maxConcurrentDownloads = 8  // segments fetched at once
let download = try HLSDownloader(configuration: configuration).start(url, to: file)
let progress = Task {
    for await event in download.events {
        switch event {
        case .planned(let info): print("\(info.playlistURL): \(info.segmentCount) segments, \(info.resumedResources) files kept")
        case .progress(let progress): print("\(progress.completedResources) of \(progress.resourceCount) files")
        case .retrying(let error, let attempt, let delay): print("\(error.message); retry \(attempt) in \(delay)")
        default: break
        }
    }
}
do {
    let result = try await download.value
    print("saved \(result.path): \(result.bytes) bytes, \(result.segmentCount) segments")
} catch {
    print("failed (\(error.code)): \(error.message)")
    if let folder = error.resumableFile { print("run again to resume from \(folder)") }
}
await progress.value
// README end
