// The libFuzzer target for MPEG transport streams (HLS segments): the demuxer (`MPEGTSDemuxer`)
// over the input whole and cut into reads of sizes the input chooses, and the HLS segment
// reader the same way (SegmentReaderCheck.swift). The seeds are the first
// packets of streams ffmpeg muxes from the audio fixtures (scripts/fuzz.sh).

import FuzzSupport
import SlipstreamCore
@testable import SlipstreamMedia

/// The input: one byte that seeds the read sizes, then the stream.
func fuzzTransportStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    guard input.count >= 1 else { return 0 }
    let stream = Array(input[1...])
    let whole = demux(stream, seed: nil)
    let split = demux(stream, seed: UInt64(input[0]))
    require(whole == split, "the output depends on how the stream was cut: \(whole.summary) against \(split.summary)")
    require(whole.audio.count + whole.skipped <= stream.count, "more bytes out than in")
    require(whole.error == nil || whole.codec == nil || whole.error!.contains("scrambled"), "an error after the audio was found")
    checkSegmentReader(stream, seed: UInt64(input[0]))
    return 0
}

/// What one run gave: everything, in order, with the error that ended it.
struct Demuxed: Equatable {
    var codec: AudioFormat.Codec?
    var audio: [UInt8] = []
    var timestamps: [Int64?] = []
    var discontinuities = 0
    var skipped = 0
    var error: String?

    var summary: String {
        "\(audio.count) audio bytes, \(timestamps.count) PES, \(discontinuities) gaps, \(skipped) skipped, \(error ?? "no error")"
    }
}

/// Feeds `stream` whole (no seed) or in reads of 1 to 400 bytes.
func demux(_ stream: [UInt8], seed: UInt64?) -> Demuxed {
    var random = SplitMix64(seed: seed ?? 0)
    var demuxer = MPEGTSDemuxer()
    var output = Demuxed()
    var start = 0
    while start < stream.count {
        let end = seed == nil ? stream.count : min(start + Int(random.next() % 400) + 1, stream.count)
        do {
            try stream[start..<end].withUnsafeBytes { input in
                try demuxer.take(input) { event in
                    switch event {
                    case .stream(let codec): output.codec = codec
                    case .timestamp(let pts): output.timestamps.append(pts)
                    case .audio(let bytes): output.audio += bytes
                    case .discontinuity: output.discontinuities += 1
                    }
                }
            }
        } catch {
            output.error = "\(error)"
            break
        }
        start = end
    }
    output.skipped = demuxer.skippedBytes
    return output
}
