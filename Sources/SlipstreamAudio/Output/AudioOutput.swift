/// Where PCM goes: a sound server, a sound device, a WAV file, or nowhere.
///
/// Every call blocks and comes from one thread at a time (the player's playback thread); nothing
/// here may run on the Swift concurrency pool. `write` paces its caller: a device or a paced null
/// output blocks while its buffer is full, so the playback thread decodes just ahead of it.
public protocol AudioOutput: AnyObject {
    /// Opens the device (or file) for this format. Opening again with the same format is a
    /// `flush()`; with another format it reopens the device (a WAV file refuses: it holds one
    /// format).
    func open(_ format: PCMFormat) throws(AudioOutputError)

    /// Plays these interleaved frames (a whole number of frames, in the opened format), blocking
    /// while the device's buffer is full.
    func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError)

    /// Frames actually heard since `open` or the last `flush()`: frames written minus those still
    /// queued in the device. The player's clock.
    func framesPlayed() -> Int64

    /// Pauses or resumes the sound at once, keeping what is queued (PulseAudio's simple API
    /// cannot: there the sound stops after what the server holds, see `PulseAudioOutput`). A
    /// `write` while paused resumes first (rather than block forever on a full, stopped device).
    func setPaused(_ paused: Bool) throws(AudioOutputError)

    /// Drops what is queued without playing it (seek, stop); the clock starts again at 0.
    func flush() throws(AudioOutputError)

    /// Blocks until everything written has been heard (end of stream).
    func drain() throws(AudioOutputError)

    /// Releases the device or finishes the file. Safe to call more than once.
    func close()

    /// Whether what is written is heard as it is written (a sound server, a device, the paced
    /// null output, a pipe): the player then keeps audio queued against gaps. False for an output
    /// that takes PCM as fast as it comes and that nobody listens to as it plays (a WAV file, the
    /// unpaced null output): nothing there is heard late, so a live stream's reads gather from
    /// the first audio on (`ReadGathering`). Asked after `open`. Default: true.
    var playsInRealTime: Bool { get }
}

extension AudioOutput {
    /// An output plays in real time unless it says otherwise.
    public var playsInRealTime: Bool { true }
}
