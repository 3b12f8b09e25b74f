import SlipstreamHTTP

/// How an `AudioStreamer` buffers, connects and plays. Every field has a documented default.
public struct AudioStreamerConfiguration: Sendable {
    /// How much audio the packet queue holds ahead of playback.
    public enum BufferLimit: Hashable, Sendable {
        /// At most this many bytes of packets not yet played.
        case bytes(Int)
        /// About this many seconds of audio (converted to bytes at the stream's bit rate once
        /// it is known; never less than 64 KiB).
        case seconds(Double)
        /// Keep the whole stream: the network runs free and every seek backwards is in memory.
        case unlimited
    }

    /// How much is queued before the network is paused. Default: 30 seconds of audio (480 KB
    /// of 128 kbps MP3), so an hour-long stream plays in flat memory.
    public var bufferLimit = BufferLimit.seconds(30)
    /// The network resumes when the queue falls below this fraction of the limit. Default 0.75.
    public var resumeFraction = 0.75
    /// Seconds of audio queued before playback starts (or the whole stream, if shorter).
    /// Default 0.05 s (two MP3 frames): a fast connection starts playing in a few
    /// milliseconds, one at twice the bit rate in about 25 ms.
    public var startThreshold = 0.05
    /// Seconds of audio queued before playback restarts after the queue ran dry. Default 1 s,
    /// so a connection slower than the stream stutters in long pieces rather than short ones.
    public var restartThreshold = 1.0
    /// Seconds without a byte (not counting time paused or with the buffer full) after which
    /// the connection counts as stalled and is reopened. Default 10 s.
    public var inactivityTimeout = 10.0
    /// Reconnects after a dropped or stalled connection, per streak of failures (a byte of
    /// progress ends a streak). Default 3; the delay starts at `reconnectDelay` and doubles.
    public var reconnectAttempts = 3
    /// Seconds before the first reconnect. Default 0.5.
    public var reconnectDelay = 0.5
    /// Seconds allowed to connect. Default 10.
    public var connectTimeout = 10.0
    /// Proxy for HTTP(S) URLs (`http://`, `https://`, `socks5h://` ...). Default none; the
    /// environment's proxy variables are ignored.
    public var proxy: String?
    /// Extra request headers.
    public var headers = HTTPHeaders()
    /// A Content-Type (`audio/mpeg`) or file extension (`mp3`) to help format detection; the
    /// bytes decide. Default none.
    public var fileTypeHint: String?
    /// Where the sound goes. Default: a null output that plays as fast as possible (set this to
    /// a real device; the command-line tool defaults to PulseAudio, else ALSA).
    public var output: @Sendable () throws(AudioOutputError) -> any AudioOutput = { NullOutput(paced: false) }
    /// The PCM the decoder hands the output. Default 16-bit signed.
    public var sampleType = PCMFormat.SampleType.signed16
    /// Software volume, 0.0 (silent) to 1.0 (unchanged). Default 1.0.
    public var volume = 1.0
    /// Called on the network thread with every slice of the original bytes as received, and
    /// its offset in the stream (offsets jump after a seek); valid only during the call. Used
    /// to save the stream while it plays. Default none.
    public var rawTap: (@Sendable (_ offset: Int64, _ bytes: UnsafeRawBufferPointer) -> Void)?
    /// Seconds from the start of the stream to begin playing at (seeking as soon as the format
    /// is known, before any sound). Default none: from the start.
    public var startTime: Double?
    /// Seconds between `.progress` events while playing. Default 0.25.
    public var progressInterval = 0.25

    /// The default configuration.
    public init() {}
}
