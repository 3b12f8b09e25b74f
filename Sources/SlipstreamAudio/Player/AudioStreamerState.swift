/// What an `AudioStreamer` is doing: the states AudioStreamer's users know.
public enum AudioStreamerState: Hashable, Sendable, CustomStringConvertible {
    /// Created; `play()` not called yet.
    case initialized
    /// Connecting, or buffering: too little audio queued to start (or restart after the queue
    /// ran dry).
    case waitingForData
    /// Enough audio is queued; the output is being opened and fed its first frames.
    case waitingForOutput
    /// Sound is coming out.
    case playing
    /// Paused by the user; the network carries on until the buffer is full.
    case paused
    /// The whole stream was played (end of stream).
    case done
    /// Stopped by the user or by an error; everything is released.
    case stopped(AudioStreamerStopReason)

    /// Whether the streamer is finished (done or stopped) and will do nothing more.
    public var isFinal: Bool {
        switch self {
        case .done, .stopped: return true
        default: return false
        }
    }

    /// The state in a word or two, as the command line's status line shows it ("buffering",
    /// "playing", "stopped: REASON").
    public var description: String {
        switch self {
        case .initialized: return "initialized"
        case .waitingForData: return "buffering"
        case .waitingForOutput: return "starting"
        case .playing: return "playing"
        case .paused: return "paused"
        case .done: return "done"
        case .stopped(.user): return "stopped"
        case .stopped(.error(let error)): return "stopped: \(error.message)"
        }
    }
}

/// Why an `AudioStreamer` stopped.
public enum AudioStreamerStopReason: Hashable, Sendable {
    /// `stop()` was called.
    case user
    /// Playback could not go on.
    case error(AudioStreamerError)
}
