/// When a live stream's connection lets its bytes gather between reads: a station sends its
/// audio at playing speed in small packets (an Icecast server, one every ~30 ms), and reading
/// each as it comes wakes the network thread, and often the playback thread, for every one.
/// Once the player holds `gatherAbove` of audio, a quarter-second's wait for the next bytes
/// costs nothing audible, and one read takes several packets; below `readEachBelow` (a slow
/// link, a reconnect), bytes are read as they come again. A file's reads never gather: the
/// player fills its buffer as fast as the network allows.
enum ReadGathering {
    /// Turn gathering on (with this interval) or off (nil).
    struct Change: Equatable {
        var interval: Duration?
    }

    /// How long bytes may gather: four reads a second.
    static let interval = Duration.milliseconds(250)
    /// Audio held (seconds) above which a live stream's reads gather.
    static let gatherAbove = 2.0
    /// Audio held (seconds) below which they no longer do.
    static let readEachBelow = 1.0

    /// The change for a connection to a stream (`isLive`) whose reads are `gathered` now, the
    /// player holding `buffered` seconds of audio; `gathered` is updated.
    static func change(isLive: Bool, gathered: inout Bool, buffered: Double) -> Change? {
        if !gathered, isLive, buffered >= gatherAbove {
            gathered = true
            return Change(interval: interval)
        }
        if gathered, buffered < readEachBelow {
            gathered = false
            return Change(interval: nil)
        }
        return nil
    }
}
