import SlipstreamAudio

/// `play --json`: the JSON lines each event of the player becomes (README, "Events as JSON
/// lines", documents every one). Progress is written at most 4 times a second (and always
/// at the end, just before `done`); a format line only when the format changes. Events it
/// does not know are left out. Pure.
struct PlayEventJSON {
    /// The most progress lines in any second.
    static let progressPerSecond = 4
    private var format: AudioFormat?
    /// When the last progress lines were written (monotonic ns), oldest first.
    private var progressTimes: [Int64] = []
    /// The newest progress not written (too soon after others), written before `done`: the
    /// player's last progress comes just before its final state.
    private var unwrittenProgress: AudioStreamerProgress?

    /// The lines for `event`, which came at monotonic time `now` (ns).
    mutating func lines(for event: AudioStreamerEvent, now: Int64) -> [String] {
        switch event {
        case .stateChanged(let state):
            var line = JSONLine(event: "state")
            line.add("state", Self.name(of: state))
            if state == .done, let last = unwrittenProgress {
                unwrittenProgress = nil
                return [Self.line(last).line, line.line]
            }
            guard case .stopped(let reason) = state else { return [line.line] }
            switch reason {
            case .user:
                line.add("reason", "user")
                return [line.line]
            case .error(let error):
                line.add("reason", "error")
                return [Self.error("error", error).line, line.line]
            }
        case .bufferingStarted, .bufferingEnded:
            var line = JSONLine(event: "buffering")
            line.add("status", event == .bufferingStarted ? "started" : "ended")
            return [line.line]
        case .progress(let progress):
            guard takesProgress(at: now) else {
                unwrittenProgress = progress
                return []
            }
            unwrittenProgress = nil
            return [Self.line(progress).line]
        case .properties(let properties) where properties.format != nil && properties.format != format:
            let new = properties.format!
            format = new
            var line = JSONLine(event: "format")
            line.add("codec", new.codec.rawValue)
            line.add("description", new.codecDescription)
            line.add("sampleRate", new.sampleRate)
            line.add("channels", new.channels)
            return [line.line]
        case .reconnecting(let attempt, let error):
            var line = Self.error("reconnecting", error)
            line.add("attempt", attempt)
            return [line.line]
        case .station(let station):
            var line = JSONLine(event: "station")
            line.add("name", station.name)
            line.add("genre", station.genre)
            line.add("description", station.description)
            line.add("url", station.url)
            line.add("bitrate", station.bitRate)
            return [line.line]
        case .titleChanged(let title):
            var line = JSONLine(event: "title")
            line.add("title", title.title)
            line.add("url", title.url)
            line.add("artist", title.artistAndTitle?.artist)
            line.add("song", title.artistAndTitle?.title)
            return [line.line]
        case .playlistEntryStarted(let url, let title):
            var line = JSONLine(event: "playlist")
            line.add("status", "started")
            line.add("url", url)
            line.add("title", title)
            return [line.line]
        case .playlistEntrySkipped(let url, let error):
            var line = JSONLine(event: "playlist")
            line.add("status", "skipped")
            line.add("url", url)
            line.add("code", error.code.description)
            line.add("message", error.message)
            return [line.line]
        case .recordingStarted(let file):
            return [Self.recording("started", file).line]
        case .recordingFinished(let file):
            var line = Self.recording("finished", file)
            line.add("bytes", file.audioBytes)
            line.add("dropped", file.droppedBytes)
            return [line.line]
        case .undecodableFrames(let count, let total):
            var line = JSONLine(event: "undecodable")
            line.add("count", count)
            line.add("total", total)
            return [line.line]
        case .recordingFailed(let error):
            var line = JSONLine(event: "recording")
            line.add("status", "failed")
            line.add("path", error.path)
            line.add("code", error.code.description)
            line.add("message", error.message)
            return [line.line]
        default:
            // Properties with the format told before, and events this writer does not know.
            return []
        }
    }

    /// Whether a progress line may be written at `now`: fewer than `progressPerSecond` in the
    /// second before it.
    private mutating func takesProgress(at now: Int64) -> Bool {
        if progressTimes.count == Self.progressPerSecond {
            guard now - progressTimes[0] >= 1_000_000_000 else { return false }
            progressTimes.removeFirst()
        }
        progressTimes.append(now)
        return true
    }

    /// The line of a progress snapshot.
    private static func line(_ progress: AudioStreamerProgress) -> JSONLine {
        var line = JSONLine(event: "progress")
        line.add("position", progress.position)
        line.add("duration", progress.duration)
        line.add("buffered", progress.buffered)
        line.add("bitrate", progress.bitRate.map { $0 / 1000 })
        line.add("received", progress.bytesReceived)
        return line
    }

    /// The state's name: the case of `AudioStreamerState`.
    static func name(of state: AudioStreamerState) -> String {
        switch state {
        case .initialized: "initialized"
        case .waitingForData: "waitingForData"
        case .waitingForOutput: "waitingForOutput"
        case .playing: "playing"
        case .paused: "paused"
        case .done: "done"
        case .stopped: "stopped"
        }
    }

    private static func error(_ event: String, _ error: AudioStreamerError) -> JSONLine {
        var line = JSONLine(event: event)
        line.add("code", error.code.description)
        line.add("message", error.message)
        return line
    }

    private static func recording(_ status: String, _ file: AudioRecordingFile) -> JSONLine {
        var line = JSONLine(event: "recording")
        line.add("status", status)
        line.add("path", file.path)
        line.add("title", file.title?.title)
        return line
    }
}
