/// A seek by probing, for a stream with no table of offsets whose parser places packets exactly
/// soon after a jump (Ogg: from the granule position of the first page it reads; FLAC without a
/// SEEKTABLE: from the number in the first frame header it finds). The network side connects
/// near an estimate; the first packet placed there says which side of the target
/// the probe landed on, and the range of offsets shrinks (interpolated by frames, else halved)
/// until a probe lands before the target and about `readOnLimit` bytes from it (at most twice), where the
/// network side reads on and drops the packets before the target. Pure: places in, offsets out.
struct SeekSearch: Hashable, Sendable {
    /// What the network side does next.
    enum Step: Hashable, Sendable {
        /// Keep this connection: the packets before the target are dropped as they come.
        case readOn
        /// Connect again from this offset.
        case probe(Int64)
    }

    /// Bytes read on before the target at most, once a probe lands before it.
    static let readOnLimit: Int64 = 64 << 10
    /// Probes at most; then the search reads on from the last place before the target.
    static let maximumProbes = 32

    /// The first stream frame wanted (the seek target less the decoder's priming).
    let target: Int64
    /// An offset whose first placed packet starts at or before the target, and that frame.
    private(set) var low: Int64
    private(set) var lowFrame: Int64
    /// An offset past the target (its first placed packet starts after it, or none is placed
    /// before the end), and that packet's frame when known.
    private(set) var high: Int64
    private(set) var highFrame: Int64?
    /// The offset of the connection now probing, and the probes made.
    private(set) var probe: Int64
    private(set) var probes = 1
    /// The probe is the last: it reads on whatever it finds (before the target, by the bounds).
    private var isSettling = false
    /// Bytes per frame, for guesses without a frame at `high`.
    private let bytesPerFrame: Double

    /// A search for stream frame `target` in the audio between `start` (an offset at or before
    /// the first packet, frame 0) and `end` (the stream's size), its first probe near the
    /// estimate `probe` (aimed a little early, as every guess).
    init(target: Int64, start: Int64, end: Int64, probe: Int64, bytesPerFrame: Double) {
        self.target = target
        low = start
        lowFrame = 0
        high = max(end, start + 1)
        // An estimate past the stream's end (or too near it to find a page) starts earlier.
        self.probe = max(min(probe - Self.readOnLimit / 2, high - Self.readOnLimit), start)
        self.bytesPerFrame = bytesPerFrame.isFinite && bytesPerFrame > 0 ? bytesPerFrame : 1
    }

    /// The first packet placed after the probe's offset starts at stream frame `frame`.
    mutating func placed(frame: Int64) -> Step {
        if isSettling { return .readOn }
        if frame <= target {
            (low, lowFrame) = (probe, frame)
            if Double(target - frame) * bytesPerFrame <= Double(Self.readOnLimit) { return .readOn }
        } else {
            (high, highFrame) = (probe, frame)
            // Nothing placed starts before the target from here: the stream's first packets.
            if probe <= low { return .readOn }
        }
        return next()
    }

    /// The probe's connection reached the stream's end with no packet placed: it is past the
    /// last page that places one.
    mutating func ended() -> Step {
        if isSettling || probe <= low { return .readOn }
        high = probe
        highFrame = nil
        return next()
    }

    /// The next probe: the target's place interpolated between the bounds (aimed a little
    /// early), halving the range where that does not shrink it; the last place before the
    /// target once the range is short or the probes are spent.
    private mutating func next() -> Step {
        probes += 1
        if high - low <= Self.readOnLimit || probes >= Self.maximumProbes {
            isSettling = true
            probe = low
            return .probe(low)
        }
        let guess: Double
        if let highFrame, highFrame > lowFrame {
            guess = Double(low) + Double(target - lowFrame) / Double(highFrame - lowFrame) * Double(high - low)
        } else {
            guess = Double(low) + Double(target - lowFrame) * bytesPerFrame
        }
        var offset = Int64(min(max(guess, Double(low)), Double(high))) - Self.readOnLimit / 2
        if offset <= low || offset >= high { offset = low + (high - low) / 2 }
        probe = offset
        return .probe(offset)
    }
}
