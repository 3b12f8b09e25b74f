import SlipstreamAudio
import SlipstreamDownload

/// `get URL --play`: the file plays while it downloads, as `play URL --keep FILE` does, seen
/// from `get` (its status line is the download's progress). Playback failing leaves the
/// download alone; the download failing stops playback.
struct GetPlaying {
    private let player: AudioStreamer
    private let messages: Task<Void, Never>

    /// Starts playing `download` (of `url`) to `output`; playback's error is told over the
    /// status line when `showBar`.
    init(download: Download, url: String, output: AudioOutputChoice, showBar: Bool) {
        var configuration = AudioStreamerConfiguration()
        configuration.output = { () throws(AudioOutputError) -> any AudioOutput in try output.makeOutput() }
        configuration.progressInterval = nil
        player = AudioStreamer(download: download, url: url, configuration: configuration)
        let player = player
        messages = Task {
            for await event in player.events {
                if case .stateChanged(.stopped(.error(let error))) = event, error.code != .cancelled {
                    Terminal.message("slipstream: --play: \(error.message)", over: showBar)
                }
            }
        }
        player.play()
    }

    /// Once the download ended (`downloaded`): lets the rest play to its end when it is
    /// complete (the status line stays), else stops playback.
    func finish(downloaded: Result<DownloadResult, DownloadError>) async {
        if case .failure = downloaded { player.stop() }
        await messages.value
    }
}
