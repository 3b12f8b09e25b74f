// Describes an audio URL or file with a few reads, then plays it on the system's audio output
// (PulseAudio where a server runs, else ALSA), 30 s in, printing its events.
//   swift run PlayStream URL|FILE
import SlipstreamAudio

guard let url = CommandLine.arguments.dropFirst().first else { fatalError("usage: PlayStream URL|FILE") }

// README: AudioStreamer
let info = try await AudioInfo.read(from: url)
print("\(info.audio.format), \(info.audio.duration.map { "\($0) s" } ?? "live")")

var configuration = AudioStreamerConfiguration()
configuration.startTime = .seconds(30)
let player = AudioStreamer(url: url, configuration: configuration)
// State changes, buffering, progress, properties, reconnects; it ends after the last state.
let printer = Task {
    for await event in player.events { print(event) }
}
// A second reader, of the same events: what a radio station says is playing, as it is heard.
let titles = Task {
    for await case .titleChanged(let title) in player.events { print("now playing: \(title.title)") }
}
player.play()
do {
    let end = try await player.waitUntilFinished()  // cancelling this task stops the player
    print("ended: \(end)")
} catch {
    print("stopped (\(error.code)): \(error.message)")
}
await printer.value
await titles.value
// README end
