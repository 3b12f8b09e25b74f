import Dispatch
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// Plays audio while it streams: `URL -> HTTP engine -> [raw tap] -> parser -> packet queue ->
/// decoder -> output` (a local file path works too).
///
///     let player = AudioStreamer(url: "http://127.0.0.1:8080/song.mp3")
///     player.play()
///     for await event in player.events { ... }   // state, buffering, progress, properties
///     try player.seek(to: .seconds(90))
///     player.stop()
///
/// Threads, and who owns what: the network side (the source's connection and the parser) runs
/// on the HTTP engine's I/O thread, or a file reader's; the playback side (the decoder, the
/// gapless trim, the output) on the streamer's own playback thread; the state machine on a
/// private serial queue. The packet queue is the one thing the two sides share; each tells the
/// state machine what happened, and takes its commands. Nothing blocks the Swift concurrency
/// pool. Every method may be called from any thread.
///
/// A player that plays keeps itself alive until it is done or stopped.
public final class AudioStreamer: Sendable {
    /// The URL or file path played.
    public let source: String
    /// How the streamer buffers, connects and plays.
    public let configuration: AudioStreamerConfiguration
    /// The download played while it runs, for a player of one (`init(download:url:configuration:)`,
    /// `init(url:keeping:downloader:configuration:)`): its events, progress and result are
    /// there. Nil for a player of a URL or a file.
    public let download: Download?
    /// Everything the streamer reports, in order; the sequence ends with the final state's
    /// `.stateChanged` (`done` or `stopped`), the last event (a player that played to the end
    /// tells a last `.progress` just before `done`).
    /// Any number of tasks may read it at once, each getting every event (one that starts late
    /// first gets what happened before, up to the last `keptEvents`); a reader that lags loses
    /// older unread progress snapshots, and other events only once `keptEvents` wait for it.
    public let events: EventStream<AudioStreamerEvent>

    /// The most events kept for a reader that starts late or lags: 1,024 (hours of a station's
    /// titles and state changes), so that memory stays flat however long a station plays.
    public static let keptEvents = 1024

    let eventChannel = EventChannel<AudioStreamerEvent>(limit: keptEvents)
    let location: AudioLocation
    /// The HTTP engine for a URL; nil: the shared one (not started for a file).
    let engine: HTTPEngine?
    /// The control side: the state machine and what it knows.
    let control: MachineShell<PlayerControlState>
    /// Runs the state machine and its actions, one input at a time.
    let controlQueue = DispatchQueue(label: "slipstream.audio-streamer")
    /// The one object the network and playback sides share.
    let queue: SharedPacketQueue
    private let delegateBox = Mutex<(any AudioStreamerDelegate)?>(nil)

    /// Creates a streamer for an `http(s)://` URL or a local file path, fetching a URL on
    /// `engine` (default: the shared one, which a file does not start); nothing happens until
    /// `play()`.
    public convenience init(
        url: String, configuration: AudioStreamerConfiguration = AudioStreamerConfiguration(),
        engine: HTTPEngine? = nil
    ) {
        self.init(url: url, download: nil, configuration: configuration, engine: engine)
    }

    /// A streamer for `url`, read through `download`'s readers when given.
    init(url: String, download: Download?, configuration: AudioStreamerConfiguration, engine: HTTPEngine?) {
        source = url
        self.download = download
        self.configuration = configuration
        self.engine = engine
        location = AudioLocation(url)
        events = EventStream(eventChannel)
        control = MachineShell(PlayerControlState(configuration: configuration))
        queue = SharedPacketQueue(limit: configuration.bufferLimit, resumeFraction: configuration.resumeFraction)
        // An HLS download keeping the stream joins only once this player is done with it.
        configuration.keptHLS?.hold(self)
    }

    deinit { configuration.keptHLS?.release(self) }

    /// Told of every event as it happens, on the streamer's private queue (keep it quick).
    public var delegate: (any AudioStreamerDelegate)? {
        get { delegateBox.withLock { $0 } }
        set { delegateBox.withLock { $0 = newValue } }
    }

    /// The current state.
    public var state: AudioStreamerState { control.withLock { $0.machine.state } }

    /// What the parser knows about the stream so far (format, duration, bit rate, tags).
    public var properties: AudioStreamProperties { control.withLock { $0.properties } }

    /// What the radio station says about itself (name, genre, ...), once it has answered; nil
    /// for a stream that is no station.
    public var station: StationInfo? { control.withLock { $0.station } }

    /// The radio title of what is heard now (the last `.titleChanged`), if the station gave one.
    public var title: StreamTitle? { control.withLock { $0.title } }

    /// Position, duration, buffered audio and bit rate now.
    public var progress: AudioStreamerProgress {
        let properties = self.properties
        let (position, buffered, bytes) = queue.withLock { ($0.position, $0.unplayedSeconds, $0.bytesReceived) }
        return AudioStreamerProgress(
            position: Double(position) / 1e9, duration: properties.duration, buffered: buffered,
            bitRate: properties.bitRate?.bitsPerSecond, bytesReceived: bytes)
    }

    /// Starts playing (connecting first), or resumes after `pause()`.
    public func play() { send(.play) }

    /// Pauses the sound at once; the network carries on until the buffer is full.
    public func pause() { send(.pause) }

    /// Stops for good and releases the network, the decoder and the output (on the
    /// streamer's queue, soon after). When it returns, `state` is `.stopped(.user)` (unless
    /// the player had already ended), whether it played or not.
    public func stop() { sendNow(.stop) }

    /// Software volume from 0.0 (silent) to 1.0 (as decoded); takes effect within a few ms.
    public func setVolume(_ volume: Double) {
        let volume = min(max(volume, 0), 1)
        let playback = control.withLock { control in
            control.volume = volume
            return control.playback
        }
        playback?.post(.volume(volume))
    }

    /// The volume now (0.0 to 1.0).
    public var volume: Double { control.withLock { $0.volume } }
}

/// Told of an `AudioStreamer`'s events as they happen (optional sugar over `events`).
public protocol AudioStreamerDelegate: AnyObject, Sendable {
    /// Called on the streamer's private queue, in order.
    func audioStreamer(_ streamer: AudioStreamer, didEmit event: AudioStreamerEvent)
}
