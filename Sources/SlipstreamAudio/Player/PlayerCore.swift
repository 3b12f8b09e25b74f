import SlipstreamHTTP

/// Everything the threads of an `AudioStreamer` share, guarded by its lock: the state machine,
/// the parser and packet queue (filled on the network thread), the connection, and the
/// commands and reports exchanged with the playback thread.
struct PlayerCore {
    var machine: PlayerStateMachine
    var parser: AudioStreamParser
    var properties = AudioStreamProperties()
    /// Created when the format is known (a limit in seconds needs the bit rate).
    var queue: PacketQueue?

    // MARK: Connection
    /// Number of the current connection; answers from older ones are ignored.
    var generation = 0
    var connection: (any StreamConnection)?
    /// The feed paused the connection because the queue is full.
    var isBackpressured = false
    /// Monotonic time (ns) of the last byte, or of the moment waiting for bytes began.
    var lastActivity: Int64 = 0
    var bytesReceived: Int64 = 0
    /// Whether the current connection has delivered a byte.
    var connectionHasData = false
    var totalSize: Int64?
    var strongETag: String?
    /// Whether the source answers ranges; `nil` until a range was asked for.
    var rangesSupported: Bool?
    /// The current connection delivered everything: no bytes follow until a seek.
    var streamEnded = false

    // MARK: Frames
    /// The stream frame the next packet starts at when the parser cannot say (after an
    /// estimated seek or a reconnect to a live stream).
    var nextFrameGuess: Int64 = 0
    /// The frames of the packets now arriving are an estimate (after a seek by the Xing table
    /// or the mean bit rate): gapless trimming at the end is left out.
    var positionsEstimated = false
    /// Packets ending before this stream frame are dropped as they arrive (a seek target, less
    /// the packets the decoder needs to prime).
    var dropBeforeFrame: Int64?
    /// Packets the decoder needs before a seek point (published by the playback thread).
    var primingPackets = 4

    // MARK: Readiness
    /// `.bufferReady` was sent since the last seek or underrun.
    var readyAnnounced = false
    /// Seconds of audio needed before `.bufferReady`.
    var readyThreshold: Double

    // MARK: Playback thread
    /// Whether the playback thread should be writing to the output.
    var run = false
    var stopRequested = false
    /// Bumped by every seek: the playback thread flushes, resets the decoder, and discards
    /// output before `seekFrame`.
    var flushGeneration = 0
    var seekFrame: Int64?
    var volume: Double
    /// Presentation frames heard (the output's clock, plus where it started).
    var positionFrame: Int64 = 0
    /// The queue ran dry and the playback thread is waiting for packets.
    var isUnderrun = false

    init(configuration: AudioStreamerConfiguration) {
        machine = PlayerStateMachine(reconnectAttempts: configuration.reconnectAttempts,
                                     reconnectDelay: configuration.reconnectDelay)
        var hints = AudioStreamHints()
        if let hint = configuration.fileTypeHint {
            if hint.contains("/") { hints.contentType = hint } else { hints.fileExtension = hint }
        }
        parser = AudioStreamParser(hints: hints)
        readyThreshold = configuration.startThreshold
        volume = min(max(configuration.volume, 0), 1)
        pendingStart = configuration.startTime.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Sample rate of the stream, once known.
    var sampleRate: Int? { properties.format?.sampleRate }

    /// The decoder exists and `trim` and `primingPackets` are its.
    var isDecoderReady = false
    /// `configuration.startTime`, until the seek to it is planned.
    var pendingStart: Double?
    /// Which decoded frames are heard (published by the playback thread with the decoder).
    var trim = GaplessTrim.none

    /// Seconds of audio queued and not yet played.
    var bufferedSeconds: Double {
        guard let rate = sampleRate, rate > 0, let queue else { return 0 }
        return Double(queue.unplayedFrames) / Double(rate)
    }
}
