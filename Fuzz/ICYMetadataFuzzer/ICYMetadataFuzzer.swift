// The libFuzzer target for what a radio station interleaves with its audio: the ICY metadata
// filter (`ICYMetadataFilter`) over a stream cut into reads of sizes the input chooses, and each
// block it finds read as `ICYMetadata` (the title up to the first `';`, in UTF-8 or
// Windows-1252).

import FuzzSupport
import SlipstreamCore
@testable import SlipstreamMedia

/// The input: two bytes of interval (big-endian, 0 taken as 1), one byte that seeds the read
/// sizes, then the stream as a server sends it.
func fuzzICYMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    guard input.count >= 3 else { return 0 }
    let interval = max(Int(input[0]) << 8 | Int(input[1]), 1)
    let stream = Array(input[3...])
    let whole = filter(stream, interval: interval, seed: nil)
    let split = filter(stream, interval: interval, seed: UInt64(input[2]))
    require(whole.audio == split.audio, "the audio depends on how the stream was cut")
    require(whole.blocks == split.blocks, "the blocks depend on how the stream was cut")
    // Every byte is audio, a length byte or a block's (an unfinished block's bytes included).
    require(whole.audio.count + whole.consumedOther == stream.count, "bytes lost or doubled")
    for block in whole.blocks { check(block) }
    check(stream)
    return 0
}

/// A block read as ICY metadata: whatever it holds, the title has no `';` (it ends at the
/// first) and no NUL.
private func check(_ block: [UInt8]) {
    let metadata = block.withUnsafeBytes { ICYMetadata($0) }
    if let title = metadata.title {
        require(!title.contains("';") && !title.contains("\0"), "title \(title.debugDescription) runs past its end")
    }
}

/// The stream through a filter, in reads of 1 to 64 bytes from `seed` (nil: in one read).
private func filter(_ stream: [UInt8], interval: Int, seed: UInt64?) -> (audio: [UInt8], blocks: [[UInt8]], consumedOther: Int) {
    var filter = ICYMetadataFilter(interval: interval)
    var random = seed.map { SplitMix64(seed: $0) }
    var audio: [UInt8] = []
    var blocks: [[UInt8]] = []
    var other = 0
    var start = 0
    while start < stream.count {
        var count = stream.count
        if random != nil { count = Int(random!.next() % 64) + 1 }
        let end = min(start + count, stream.count)
        stream[start..<end].withUnsafeBytes { bytes in
            var index = 0
            while index < bytes.count {
                let found = filter.scan(bytes, from: index) { block, offset in
                    require(offset == Int64(audio.count), "a block's offset is not the audio before it")
                    blocks.append(Array(block))
                }
                other += found.start - index
                index = found.start
                guard found.audioCount > 0 else { break }
                audio += bytes[index..<index + found.audioCount]
                filter.audioTaken(found.audioCount)
                index += found.audioCount
            }
        }
        start = end
    }
    return (audio, blocks, other)
}

/// First inputs: streams with titles of every kind at small intervals.
var icyMetadataSeeds: [[UInt8]] {
    let titles: [[UInt8]] = [
        Array("StreamTitle='Artist - Song';StreamUrl='http://x.test/';".utf8), Array("StreamTitle='It's; here';".utf8),
        Array("StreamTitle='Beyonc".utf8) + [0xE9] + Array("';".utf8), Array("StreamTitle='';".utf8),
    ]
    return [1, 3, 16, 200].map { interval in
        var stream: [UInt8] = [UInt8(interval >> 8), UInt8(interval & 0xFF), 7]
        for (index, title) in titles.enumerated() {
            stream += (0..<interval).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            var block = title
            while block.count % 16 != 0 { block.append(0) }
            stream.append(UInt8(block.count / 16))
            stream += block
        }
        return stream
    }
}
