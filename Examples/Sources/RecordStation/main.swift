// Records a radio station into a folder, a file per song named after its title, with no sound
// (a recorder on a server), for a number of seconds or until Ctrl-C; prints each song and file.
//   swift run RecordStation URL FOLDER [SECONDS]
import Dispatch
import Glibc
import SlipstreamAudio

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fatalError("usage: RecordStation URL FOLDER [SECONDS]") }
let (url, folder) = (arguments[0], arguments[1])
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 60 : 60

// README: RecordStation
var configuration = AudioStreamerConfiguration()
configuration.recording = AudioRecording(.folder(folder))
// Nobody listens: the audio is decoded and dropped at once, and from the first audio on the
// station is read once a second (a live stream to an output nobody hears never buffers).
configuration.output = { NullOutput(paced: false) }
configuration.progressInterval = nil
let player = AudioStreamer(url: url, configuration: configuration)
let recorder = Task {
    try await withTaskCancellationHandler {
        player.play()
        return try await player.waitUntilFinished()
    } onCancel: {
        player.stop()
    }
}
let log = Task {
    for await event in player.events {
        switch event {
        case .titleChanged(let title): print("now playing: \(title.title)")
        case .recordingFinished(let file): print("saved \(file.path) (\(file.audioBytes) bytes)")
        case .recordingFailed(let error): print("recording failed: \(error.message)")
        case .reconnecting(let attempt, let error): print("reconnecting (\(attempt)): \(error.message)")
        default: break
        }
    }
}
// README end

// Ctrl-C, or the time is up: the recorder's task is cancelled, which stops the player; the last
// file is closed before the events end.
signal(SIGINT, SIG_IGN)
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT)
interrupt.setEventHandler { recorder.cancel() }
interrupt.resume()
let timer = Task {
    try await Task.sleep(for: .seconds(seconds))
    recorder.cancel()
}
do {
    print("ended: \(try await recorder.value)")
} catch let error as AudioStreamerError where error.code == .cancelled {
    print("stopped")
} catch {
    print("failed: \(error)")
}
timer.cancel()
await log.value
