import Testing

@testable import SlipstreamDaemon

/// The `Range` header on its own (RFC 9110, 14.2): single ranges, the first satisfiable one of
/// a list, 416 when none is, and anything malformed ignored.
@Suite struct RangeRequestTests {
    @Test func singleRangesAreParts() {
        #expect(RangeRequest(header: "bytes=0-99", size: 1000) == .part(0..<100))
        #expect(RangeRequest(header: "bytes=500-", size: 1000) == .part(500..<1000))
        #expect(RangeRequest(header: "bytes=-100", size: 1000) == .part(900..<1000))
        #expect(RangeRequest(header: "bytes=990-5000", size: 1000) == .part(990..<1000))
        #expect(RangeRequest(header: "bytes=999-999", size: 1000) == .part(999..<1000))
        #expect(RangeRequest(header: " BYTES = 5-9", size: 1000) == .whole)
        #expect(RangeRequest(header: "Bytes=5-9", size: 1000) == .part(5..<10))
    }

    @Test func aRangeOfTheWholeFileIsStillAPart() {
        #expect(RangeRequest(header: "bytes=0-", size: 1000) == .part(0..<1000))
        #expect(RangeRequest(header: "bytes=-5000", size: 1000) == .part(0..<1000))
    }

    @Test func rangesPastTheEndAreUnsatisfiable() {
        #expect(RangeRequest(header: "bytes=1000-", size: 1000) == .unsatisfiable)
        #expect(RangeRequest(header: "bytes=2000-3000", size: 1000) == .unsatisfiable)
        #expect(RangeRequest(header: "bytes=-0", size: 1000) == .unsatisfiable)
        #expect(RangeRequest(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(RangeRequest(header: "bytes=-10", size: 0) == .unsatisfiable)
    }

    @Test func ofAListTheFirstSatisfiableRangeIsAnswered() {
        #expect(RangeRequest(header: "bytes=0-9, 20-29", size: 1000) == .part(0..<10))
        #expect(RangeRequest(header: "bytes=5000-, 20-29", size: 1000) == .part(20..<30))
        #expect(RangeRequest(header: "bytes=,, 7-8 ,", size: 1000) == .part(7..<9))
        #expect(RangeRequest(header: "bytes=5000-, 6000-", size: 1000) == .unsatisfiable)
    }

    @Test func malformedOrForeignRangesAreIgnored() {
        for header in [
            "bytes=9-5", "bytes=a-b", "bytes=-", "bytes=5", "bytes=", "bytes=,", "items=0-5", "bytes=+1-5", "bytes=0-5, x",
            "bytes=99999999999999999999-", "bytes=1 -5", "bytes=0-9;", "0-5",
        ] {
            #expect(RangeRequest(header: header, size: 1000) == .whole, "\(header)")
        }
        #expect(RangeRequest(header: nil, size: 1000) == .whole)
    }

    @Test func withoutASizeEveryRangeIsIgnored() {
        #expect(RangeRequest(header: "bytes=0-99", size: nil) == .whole)
        #expect(RangeRequest(header: "bytes=-1", size: nil) == .whole)
    }
}
