// The HLS segment reader (`HLSSegmentReader`) over the same input: the kind told by the first
// bytes, MPEG-TS demuxed, packed audio without its ID3 tags, fMP4 passed; whole and cut into
// reads of sizes the input chooses, it must give the same bytes, first timestamp and error.

import FuzzSupport
import SlipstreamCore
@testable import SlipstreamMedia

/// What the segment reader made of `stream`: its output, kind and error.
struct SegmentRead: Equatable {
    var output: [UInt8] = []
    var kind: HLSSegmentReader.Kind?
    /// The first timestamp it read (a PES header's PTS, packed audio's ID3 one).
    var firstTimestamp: Int64?
    var error: String?
}

/// Reads `stream` as one segment, whole (no seed) or in reads of 1 to 400 bytes.
func readSegment(_ stream: [UInt8], seed: UInt64?) -> SegmentRead {
    var random = SplitMix64(seed: seed ?? 0)
    var reader = HLSSegmentReader()
    var result = SegmentRead()
    var start = 0
    do throws(HLSSegmentReader.Failure) {
        while start < stream.count {
            let end = seed == nil ? stream.count : min(start + Int(random.next() % 400) + 1, stream.count)
            try reader.take(Array(stream[start..<end]), into: &result.output)
            start = end
        }
        try reader.finish(into: &result.output)
    } catch {
        result.error = error.message
    }
    result.kind = reader.kind
    result.firstTimestamp = reader.firstTimestamp
    return result
}

/// The segment reader's invariants on `stream`: any split gives what the whole gives, and no
/// more bytes come out than went in.
func checkSegmentReader(_ stream: [UInt8], seed: UInt64) {
    let whole = readSegment(stream, seed: nil)
    let split = readSegment(stream, seed: seed)
    require(
        whole == split,
        "the segment reader depends on the split: \(whole.output.count) bytes, \(whole.error ?? "-") against \(split.output.count), \(split.error ?? "-")"
    )
    require(whole.output.count <= stream.count, "the segment reader gave more bytes than it read")
}
