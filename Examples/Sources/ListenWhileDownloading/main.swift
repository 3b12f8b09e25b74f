// Plays an audio URL while it downloads whole into a file over eight connections (as
// `slipstream play URL --keep FILE` does), then reads the same download's first bytes with a
// reader of its own. Interrupted, the next run resumes the file; once complete, it plays from
// the file with no network.
//   swift run ListenWhileDownloading URL FILE
import SlipstreamAudio
import SlipstreamDownload

let arguments = CommandLine.arguments.dropFirst()
guard let url = arguments.first, let path = arguments.dropFirst().first else {
    fatalError("usage: ListenWhileDownloading URL FILE")
}

// README: ListenWhileDownloading
let player = try AudioStreamer(url: url, keeping: path)  // Downloader(): 8 connections
if let download = player.download {
    // Any reader of the running download: bytes as soon as they are written, and the bytes
    // ahead of it are fetched first (here 4 KiB from the start, as a parser would).
    let reader = download.reader(at: 0)
    let head = try await reader.read(upTo: 4096)
    reader.close()
    print("first bytes: \(head.count)")
}
player.play()
_ = try await player.waitUntilFinished()  // a seek moves the download's window: try player.seek(to: 90)
if let result = try await player.download?.value { print("kept \(result.path): \(result.bytes) bytes") }
// README end
