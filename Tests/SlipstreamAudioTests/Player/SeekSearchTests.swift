import Testing
@testable import SlipstreamAudio

/// The seek search alone: a simulated stream where the first packet placed after an offset
/// starts at a frame proportional to it, with a dense and a sparse half (VBR).
@Suite struct SeekSearchTests {
    /// The first placed frame after `offset` in a 10 MB stream of 10 M frames whose first half
    /// holds 8 M frames (pages every 4 KiB).
    static func placed(after offset: Int64) -> Int64? {
        let page = (offset + 4095) / 4096 * 4096
        guard page < 10_000_000 else { return nil }
        return page < 5_000_000 ? page * 8 / 5 : 8_000_000 + (page - 5_000_000) * 2 / 5
    }

    /// Runs a search for `target` from a first probe near the estimate `probe`; the offset it
    /// reads on from, and the probes it made.
    static func search(_ target: Int64, probe: Int64) -> (offset: Int64, probes: Int) {
        var search = SeekSearch(target: target, start: 0, end: 10_000_000, probe: probe, bytesPerFrame: 1)
        var offset = search.probe
        while true {
            let step = placed(after: offset).map { search.placed(frame: $0) } ?? search.ended()
            guard case .probe(let next) = step else { return (offset, search.probes) }
            offset = next
        }
    }

    @Test(arguments: [0, 1, 123_456, 7_999_999, 8_000_001, 9_500_000, 9_999_999] as [Int64])
    func itReadsOnFromJustBeforeTheTargetInAFewProbes(_ target: Int64) {
        for probe in [0, target, target * 2, 9_999_000] as [Int64] {
            let (offset, probes) = Self.search(target, probe: probe)
            let frame = Self.placed(after: offset) ?? .max
            #expect(frame <= target || offset == 0, "target \(target) from \(probe): read on at \(offset), frame \(frame)")
            let bytesBefore = Double(target - min(frame, target)) * (target < 8_000_000 ? 5.0 / 8 : 5.0 / 2)
            #expect(bytesBefore <= Double(2 * SeekSearch.readOnLimit), "target \(target) from \(probe): \(bytesBefore) bytes to read on")
            #expect(probes <= 12, "target \(target) from \(probe): \(probes) probes")
        }
    }

    @Test func theFirstProbeIsAimedEarlyAndNeverBeforeTheStart() {
        let aimed = SeekSearch(target: 500_000, start: 4096, end: 10_000_000, probe: 800_000, bytesPerFrame: 1)
        #expect(aimed.probe == 800_000 - SeekSearch.readOnLimit / 2)
        let early = SeekSearch(target: 10, start: 4096, end: 10_000_000, probe: 4100, bytesPerFrame: 1)
        #expect(early.probe == 4096 && early.low == 4096)
    }

    @Test func aProbePastTheLastPlacedPacketComesBack() {
        var search = SeekSearch(target: 9_000_000, start: 0, end: 10_000_000, probe: 9_999_000, bytesPerFrame: 1)
        guard case .probe(let next) = search.ended() else { return #expect(Bool(false), "no new probe") }
        #expect(next < 9_999_000)
    }
}
