/// A moving-window byte rate: bytes are added with the time they arrived; `rate(at:)` is the
/// mean over the last `window` seconds (or since the start, when that is shorter).
struct SpeedMeter: Sendable {
    private static let slots = 20
    /// Bytes per slot of `window / slots` seconds, as a ring.
    private var buckets = [Int64](repeating: 0, count: slots)
    private var currentSlot: Int64 = 0
    private let slotSeconds: Double
    private let start: Double

    /// A meter over `window` seconds (default 2) that starts at `start` seconds.
    init(window: Double = 2, start: Double) {
        slotSeconds = window / Double(Self.slots)
        self.start = start
    }

    mutating func add(_ bytes: Int64, at time: Double) {
        advance(to: time)
        buckets[Int(currentSlot % Int64(Self.slots))] += bytes
    }

    mutating func rate(at time: Double) -> Double {
        advance(to: time)
        let elapsed = max(time - start, slotSeconds)
        let span = min(elapsed, slotSeconds * Double(Self.slots))
        return Double(buckets.reduce(0, +)) / span
    }

    private mutating func advance(to time: Double) {
        let slot = Int64(max(time - start, 0) / slotSeconds)
        guard slot > currentSlot else { return }
        let steps = min(slot - currentSlot, Int64(Self.slots))
        for step in 1...steps {
            buckets[Int((currentSlot + step) % Int64(Self.slots))] = 0
        }
        currentSlot = slot
    }
}
