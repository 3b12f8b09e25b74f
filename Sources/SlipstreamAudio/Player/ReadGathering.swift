/// When a live stream's connection lets its bytes gather between reads: a station sends its
/// audio at playing speed in small packets (an Icecast server, one every ~30 ms), and reading
/// each as it comes wakes the network thread, and often the playback thread, for every one.
/// Once the player holds `gatherAbove` of audio, a quarter-second's wait for the next bytes
/// costs nothing audible, and one read takes several packets; below `readEachBelow` (a slow
/// link, a reconnect), bytes are read as they come again. An output nobody hears as it plays (a
/// WAV file, the unpaced null output: `AudioOutput.playsInRealTime`) takes each read's audio at
/// once and holds nothing, yet nothing it plays can come late: once it is open, a live stream's
/// reads gather whatever the player holds, a second's worth at a time (a recorder left running
/// for hours wakes once a second). A file's reads never gather: the player fills its buffer as
/// fast as the network allows.
enum ReadGathering {
    /// Turn gathering on (with this interval) or off (nil).
    struct Change: Equatable {
        var interval: Duration?
    }

    /// How long bytes may gather for an output that is heard: four reads a second.
    static let interval = Duration.milliseconds(250)
    /// How long bytes may gather for an output nobody hears as it plays: one read a second.
    static let unheardInterval = Duration.seconds(1)
    /// Audio held (seconds) above which a live stream's reads gather.
    static let gatherAbove = 2.0
    /// Audio held (seconds) below which they no longer do.
    static let readEachBelow = 1.0

    /// The change for a connection to a stream (`isLive`) whose reads gather every `gathered`
    /// now (nil: read as they come), the player holding `buffered` seconds of audio for an
    /// output that is `heard` as it plays (or not open yet); `gathered` is updated.
    static func change(isLive: Bool, gathered: inout Duration?, buffered: Double, heard: Bool) -> Change? {
        let wanted: Duration?
        if !isLive {
            wanted = nil
        } else if !heard {
            wanted = unheardInterval
        } else if buffered >= gatherAbove {
            wanted = interval
        } else if buffered < readEachBelow {
            wanted = nil
        } else {
            wanted = gathered
        }
        guard wanted != gathered else { return nil }
        gathered = wanted
        return Change(interval: wanted)
    }
}
