/// The frames (packets) of a stream its decoders could not decode, counted against all they were
/// given: when the player tells of them, and when there are too many to go on. Pure: the
/// playback thread feeds it each packet's `DecodeOutcome` and the time.
///
/// The rule: most of a stream could not be decoded when more than half the frames counted
/// were undecodable, once at least `minimumFrames` were counted (about 1.5 s of MP3 or AAC:
/// a damaged start alone does not stop a long file), or at the end of a shorter stream. Priming
/// packets (no audio yet, by design) are not counted either way. A stream with a few damaged
/// frames among good ones plays on, and the count is told.
struct DecodeTally: Hashable, Sendable {
    /// Frames counted before the rule applies in the middle of a stream.
    static let minimumFrames = 64
    /// The shortest time between two reports (ns): a count told at most once a second.
    static let reportInterval: Int64 = 1_000_000_000

    /// Frames the decoder could not decode.
    private(set) var undecodable = 0
    /// Frames counted: decoded or undecodable.
    private(set) var total = 0
    /// The undecodable count told last.
    private var reported = 0
    /// When it was told (monotonic ns).
    private var reportedAt: Int64?

    /// Counts one packet's outcome.
    mutating func count(_ outcome: DecodeOutcome) {
        switch outcome {
        case .decoded: total += 1
        case .undecodable:
            total += 1
            undecodable += 1
        case .priming: break
        }
    }

    /// Whether the count grew since it was last told.
    var hasUnreported: Bool { undecodable > reported }

    /// The count to tell at monotonic time `now` (ns), and the frames counted: when it grew
    /// since it was last told and that was at least `reportInterval` ago (the first at once),
    /// or, `final` (the stream ended or failed), whenever it grew. Nil when there is nothing to
    /// tell yet.
    mutating func report(now: Int64, final: Bool = false) -> (count: Int, total: Int)? {
        guard hasUnreported else { return nil }
        if !final, let reportedAt, now - reportedAt < Self.reportInterval { return nil }
        reported = undecodable
        reportedAt = now
        return (undecodable, total)
    }

    /// Whether most of the stream could not be decoded: more than half the frames counted, once
    /// `minimumFrames` were counted or (`atEnd`) the stream ended.
    func isMostlyUndecodable(atEnd: Bool = false) -> Bool {
        (atEnd || total >= Self.minimumFrames) && 2 * undecodable > total
    }
}
