import SlipstreamDownload
import SlipstreamHTTP

/// How an `AudioStreamer` buffers, connects and plays. Every field has a documented default.
public struct AudioStreamerConfiguration: Sendable {
    /// How much audio the packet queue holds ahead of playback.
    public enum BufferLimit: Hashable, Sendable {
        /// At most this many bytes of packets not yet played (from 16 KiB to 1 GiB: the queue's
        /// ring is allocated at the start, so a larger number is taken as 1 GiB).
        case bytes(Int)
        /// About this many seconds of audio (converted to bytes at the stream's bit rate once
        /// it is known; never less than 64 KiB, nor more than 2 MiB: high bit rates such as
        /// PCM get fewer seconds).
        case seconds(Double)
        /// Keep the whole stream: the network runs free and every seek backwards is in memory.
        case unlimited
    }

    /// How much is queued before the network is paused. Default: 30 seconds of audio (480 KB
    /// of 128 kbps MP3), so an hour-long stream plays in flat memory.
    public var bufferLimit = BufferLimit.seconds(30)
    /// The network resumes when the queue falls below this fraction of the limit. Default 0.75.
    public var resumeFraction = 0.75
    /// Audio queued before playback starts (or the whole stream, if shorter). Default 50 ms
    /// (two MP3 frames): a fast connection starts playing in a few milliseconds, one at twice
    /// the bit rate in about 25 ms.
    public var startThreshold = Duration.milliseconds(50)
    /// Audio queued before playback restarts after the queue ran dry. Default 1 s, so a
    /// connection slower than the stream stutters in long pieces rather than short ones.
    public var restartThreshold = Duration.seconds(1)
    /// Time without a byte (not counting time paused or with the buffer full) after which the
    /// connection counts as stalled and is reopened. Default 10 s.
    public var inactivityTimeout = Duration.seconds(10)
    /// Reconnects after a dropped or stalled connection, per streak of failures (a byte of
    /// progress ends a streak). Default 3; the delay starts at `reconnectDelay` and doubles.
    public var reconnectAttempts = 3
    /// Reconnects of a live stream (a radio station: no length, no end) in all, after it
    /// failed or ended: nil (the default) keeps reconnecting for as long as the player plays,
    /// 0 lets a live stream end where its response ends. Any failure of a
    /// live stream is retried (a station whose source went away answers 404 until it is back);
    /// the waits double from `reconnectDelay` up to 5 s, so a gap stays short.
    public var liveReconnectAttempts: Int?
    /// The wait before the first reconnect. Default 0.5 s.
    public var reconnectDelay = Duration.milliseconds(500)
    /// The time allowed to connect. Default 10 s.
    public var connectTimeout = Duration.seconds(10)
    /// Proxy for HTTP(S) URLs (`http://`, `https://`, `socks5h://` ...). Default none; the
    /// environment's proxy variables are ignored.
    public var proxy: String?
    /// Extra request headers.
    public var headers = HTTPHeaders()
    /// TLS trust, a login and cookies for HTTP(S) URLs. The login goes only to the server of
    /// the URL played: never to one a redirect leads to, nor to a playlist's entries on other
    /// servers. Default: verified TLS, no login, no cookies.
    public var access = TransferAccess()
    /// Whether a radio station is asked for the titles of what it plays (`Icy-MetaData: 1`):
    /// they come as `.titleChanged` events when the audio they belong to is heard, and are
    /// taken out of the bytes before anything else sees them (the raw tap included). Default
    /// true; a server that is no radio station ignores the request.
    public var requestsStreamMetadata = true
    /// A Content-Type (`audio/mpeg`) or file extension (`mp3`) to help format detection; the
    /// bytes decide. Default none.
    public var fileTypeHint: String?
    /// Which variant of an HLS master playlist is played. Default: the audio-only variant of
    /// the highest bandwidth (see `HLSVariantSelection`).
    public var hlsVariant = HLSVariantSelection()
    /// An `HLSDownload` that keeps the HLS stream played: its segments are taken from it (it
    /// fetches the one the player asks for first) rather than fetched again. Nil: fetched by
    /// the player alone.
    package var keptHLS: HLSKeptResources?
    /// Makes the output the sound goes to, on the playback thread, as soon as the stream's
    /// format is known. Default: the system's audio output, as `AudioOutputChoice.automatic`
    /// finds it (PulseAudio where a server answers, else ALSA's `default` device), which is
    /// also the command line's `--output auto`. Set it to `{ NullOutput(paced: false) }` to
    /// decode as fast as possible with no sound, or `{ WAVFileOutput(path: "out.wav") }`.
    public var output: @Sendable () throws(AudioOutputError) -> any AudioOutput = {
        try AudioOutputChoice.automatic.makeOutput()
    }
    /// The PCM the decoder hands the output. Default 16-bit signed.
    public var sampleType = PCMFormat.SampleType.signed16
    /// Software volume, 0.0 (silent) to 1.0 (unchanged). Default 1.0.
    public var volume = 1.0
    /// Called on the network thread with every slice of the original bytes as received, and
    /// its offset in the stream (offsets jump after a seek); valid only during the call. Used
    /// to save the stream while it plays. Of a playlist, the tap gets its entries' bytes, not
    /// its own, each entry tried from offset 0 again (so an entry skipped after it sent bytes,
    /// a page that is not audio, leaves them under the next one's). Default none.
    public var rawTap: (@Sendable (_ offset: Int64, _ bytes: UnsafeRawBufferPointer) -> Void)?
    /// Records the stream's audio while it plays: split into files at radio titles in a folder,
    /// or into one file (see `AudioRecording`). Never holds up playback; the files are told of
    /// as `.recordingStarted`, `.recordingFinished` and `.recordingFailed` events, and the last
    /// file is closed before the final state's event. Default none.
    public var recording: AudioRecording?
    /// Where in the stream to begin playing (seeking as soon as the format is known, before
    /// any sound). Default none: from the start.
    public var startTime: Duration?
    /// The time between `.progress` events while playing (at most 0.25 s). Default 0.25 s.
    /// nil: no `.progress` events while playing (the last one, just before `done`, still comes), for a
    /// player nobody watches: it then wakes once a second only, for the inactivity timeout.
    public var progressInterval: Duration? = .milliseconds(250)

    /// The default configuration.
    public init() {}
}
