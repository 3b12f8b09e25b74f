import SlipstreamHTTP

/// What an `AudioStreamer` reports, in order, through `events` (and its delegate).
public enum AudioStreamerEvent: Hashable, Sendable {
    /// The state changed.
    case stateChanged(AudioStreamerState)
    /// Playback waits for data (WKAudioStreamer's "blocked"): at the start, after a seek, or
    /// when the queue ran dry (not a live stream's to an output nobody hears as it plays,
    /// `AudioOutput.playsInRealTime`: that one takes each piece as it comes).
    case bufferingStarted
    /// Enough data again: sound resumes (WKAudioStreamer's "unblocked").
    case bufferingEnded
    /// Where playback is, a few times a second while playing and after every seek.
    case progress(AudioStreamerProgress)
    /// What the parser learned about the stream: format, duration, bit rate, tags.
    case properties(AudioStreamProperties)
    /// The connection failed or stalled; reconnecting (attempt 1, 2, ...) after a pause.
    case reconnecting(attempt: Int, AudioStreamerError)
    /// A radio station's facts, from its response headers (`icy-name`, ...), as each
    /// connection answers.
    case station(StationInfo)
    /// A radio station's title for what plays now, told when the audio it belongs to is heard
    /// (the output's clock), not when it arrives.
    case titleChanged(StreamTitle)
    /// A file of the recording (`AudioStreamerConfiguration.recording`) was created: the audio
    /// from here on goes to it.
    case recordingStarted(AudioRecordingFile)
    /// A file of the recording is complete and closed (a new title began, or the recording
    /// ended), with the bytes it holds and any gap.
    case recordingFinished(AudioRecordingFile)
    /// The recording could not go on (a file could not be created or written, or the audio
    /// cannot be recorded) and ended; playback goes on. The error's code is `.recording`.
    case recordingFailed(AudioStreamerError)
    /// What was played is a playlist (M3U, PLS, XSPF), and this entry of it is being opened:
    /// its URL or file path, and its title in the playlist where it gives one (a title to show
    /// until the stream tells its own). Entries are tried in order until one gives audio.
    case playlistEntryStarted(url: String, title: String?)
    /// A playlist's entry failed before it gave any audio (refused, an HTTP error, not audio,
    /// no data within the inactivity timeout, a playlist that cannot be followed): skipped, and
    /// the next entry is tried. When none is left, playback stops with an error saying how many
    /// were tried.
    case playlistEntrySkipped(url: String, AudioStreamerError)
    /// Frames the decoder could not decode (not valid data for the codec: played as silence, or
    /// as what the codec's library made of them): `count` so far, of `total` frames decoded or
    /// not (priming frames, with no audio yet by design, left out). Told when the first such
    /// frame is decoded, then at most once a second while the count grows, and once more before
    /// the stream ends or fails, with the final count. When most of a stream cannot be decoded,
    /// playback stops with an error whose code is `.undecodable`.
    case undecodableFrames(count: Int, total: Int)
}

extension AudioStreamerEvent: CoalescibleEvent {
    /// What a newer event replaces an unread older one of: progress, and the count of
    /// undecodable frames (each tells the whole count so far).
    public enum CoalescingKey: Hashable, Sendable {
        /// A progress snapshot.
        case progress
        /// A count of undecodable frames.
        case undecodableFrames
    }

    /// `.progress` for a progress snapshot, `.undecodableFrames` for a count of undecodable
    /// frames (the newest unread one wins), else nil.
    public var coalescingKey: CoalescingKey? {
        switch self {
        case .progress: .progress
        case .undecodableFrames: .undecodableFrames
        default: nil
        }
    }
}

/// A snapshot of playback position and buffering.
public struct AudioStreamerProgress: Hashable, Sendable {
    /// Seconds of audio heard, from the output's clock (frames actually played).
    public var position: Double
    /// Length of the stream in seconds, where the parser knows or can estimate it.
    public var duration: Double?
    /// Seconds of audio queued and not yet played.
    public var buffered: Double
    /// Bits per second of the stream (exact for CBR, else the best estimate so far).
    public var bitRate: Double?
    /// Bytes of the stream received so far on every connection.
    public var bytesReceived: Int64

    /// Creates a snapshot.
    public init(position: Double, duration: Double?, buffered: Double, bitRate: Double?, bytesReceived: Int64) {
        self.position = position
        self.duration = duration
        self.buffered = buffered
        self.bitRate = bitRate
        self.bytesReceived = bytesReceived
    }
}
