/// The control side of an `AudioStreamer`: the state machine and what the streamer knows for
/// its decisions and readings (the stream's properties, whether the network can seek, a start
/// time still to be sought, the volume), and the two sides it commands. Behind the streamer's
/// control lock; the sides never touch it, they send inputs.
struct PlayerControlState {
    var machine: PlayerStateMachine
    /// What the parser told of the stream (format, duration, bit rate, tags).
    var properties = AudioStreamProperties()
    /// The radio station's facts, from the last answer that gave them.
    var station: StationInfo?
    /// The radio title heard last.
    var title: StreamTitle?
    /// Whether the network can fetch from another offset (a file, a stream of known size).
    var canSeekNetwork = false
    /// A time to seek to as soon as the decoder exists (the configured start time, or a seek
    /// asked for before).
    var pendingStart: Double?
    /// The volume last set, 0 to 1.
    var volume: Double
    /// The network side, from the first connect to the release (a playlist's entries each get
    /// one of their own).
    var network: NetworkSide?
    /// The playlist followed, when what is played turned out to be one.
    var playlist: PlayerPlaylist?
    /// The playback side's mailbox, for as long as its thread runs.
    var playback: PlaybackMailbox?
    /// The recorder, from the first connect until the final state is told.
    var recorder: StreamRecorder?
    /// Monotonic time (ns) since which bytes have been expected without a pause: the inactivity
    /// timeout counts from it or from the last byte, whichever is later.
    var expectingSince: Int64 = 0
    /// The inactivity and progress timer runs (from the first connect to the release).
    var isTicking = false

    /// The state for a streamer with `configuration`.
    init(configuration: AudioStreamerConfiguration) {
        let start = configuration.startTime.flatMap { $0 > .zero ? min($0.seconds, Duration.maximumSeconds) : nil }
        machine = PlayerStateMachine(
            reconnectAttempts: configuration.reconnectAttempts,
            liveReconnectAttempts: configuration.liveReconnectAttempts,
            reconnectDelay: configuration.reconnectDelay.seconds,
            startThreshold: configuration.startThreshold.seconds,
            restartThreshold: configuration.restartThreshold.seconds,
            startsWithSeek: start != nil)
        pendingStart = start
        volume = min(max(configuration.volume, 0), 1)
    }

    /// What a seek needs to know of the stream now; nil before the format and the decoder are.
    var seekStream: SeekPlanner.Stream? {
        guard let format = properties.format, let decoder = machine.decoder else { return nil }
        return SeekPlanner.Stream(
            sampleRate: format.sampleRate, framesPerPacket: format.framesPerPacket,
            duration: properties.duration, trim: decoder.trim,
            primingPackets: decoder.primingPackets, canSeekNetwork: canSeekNetwork)
    }
}
