/// Discards PCM: paced at real time (writes block as a device's would, for listening-free runs
/// of the player), or unpaced (as fast as possible, for tests and benchmarks).
///
/// Paced, it behaves as a device with a buffer of `bufferSeconds`: a write returns once all but
/// that much of what was written has "played" on the monotonic clock, and the clock is the time
/// spent playing (not paused, not starved) converted to frames, never more than the frames
/// written. Unpaced, every write returns at once and the clock is the frames written, and nobody
/// hears it as it plays (`playsInRealTime` is false): a live stream's reads gather a second at a
/// time, and its queue running dry is not buffering. Pausing stops the clock in both.
public final class NullOutput: AudioOutput {
    /// Whether writes are paced at real time.
    public let paced: Bool
    /// The buffer a paced output pretends to have, in seconds: 0.1.
    public static let bufferSeconds = 0.1

    private var format: PCMFormat?
    private var framesWritten: Int64 = 0
    private var paused = false
    /// Paced: the frames played at `anchorTime` (monotonic nanoseconds); playing goes on from
    /// there at the format's rate unless paused.
    private var anchorFrames: Int64 = 0
    private var anchorTime: Int64 = 0

    /// Creates a null output, paced at real time (the default) or as fast as possible.
    public init(paced: Bool = true) {
        self.paced = paced
    }

    public func open(_ format: PCMFormat) throws(AudioOutputError) {
        self.format = format
        framesWritten = 0
        paused = false
        restartClock(at: 0)
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws(AudioOutputError) {
        guard let format else { throw AudioOutputError(.deviceFailed, "null output: not open", output: "null output") }
        let count = Int64(frames.count / format.bytesPerFrame)
        guard paced else {
            framesWritten += count
            return
        }
        if paused { paused = false; anchorTime = MonotonicTime.now() }
        // Starved (or just opened): playing starts again with these frames.
        if framesPlayed() >= framesWritten { restartClock(at: framesWritten) }
        framesWritten += count
        let buffer = Int64(Self.bufferSeconds * Double(format.sampleRate))
        let mustPlay = framesWritten - buffer - anchorFrames
        if mustPlay > 0 {
            MonotonicTime.sleep(until: anchorTime + MonotonicTime.nanoseconds(frames: mustPlay, rate: format.sampleRate))
        }
    }

    /// Paced, it plays in real time; unpaced, nobody waits for its sound.
    public var playsInRealTime: Bool { paced }

    public func framesPlayed() -> Int64 {
        guard paced, let format else { return framesWritten }
        if paused { return anchorFrames }
        let elapsed = MonotonicTime.frames(nanoseconds: MonotonicTime.now() - anchorTime, rate: format.sampleRate)
        return min(framesWritten, anchorFrames + elapsed)
    }

    public func setPaused(_ paused: Bool) throws(AudioOutputError) {
        guard paced, paused != self.paused else { return }
        if paused {
            anchorFrames = framesPlayed()
        } else {
            anchorTime = MonotonicTime.now()
        }
        self.paused = paused
    }

    public func flush() throws(AudioOutputError) {
        framesWritten = 0
        restartClock(at: 0)
    }

    public func drain() throws(AudioOutputError) {
        guard paced, let format else { return }
        try setPaused(false)
        let remaining = framesWritten - anchorFrames
        if remaining > 0 {
            MonotonicTime.sleep(until: anchorTime + MonotonicTime.nanoseconds(frames: remaining, rate: format.sampleRate))
        }
    }

    public func close() {
        format = nil
        framesWritten = 0
    }

    /// Playing (re)starts now from `frames`.
    private func restartClock(at frames: Int64) {
        anchorFrames = frames
        anchorTime = MonotonicTime.now()
    }
}
