import SlipstreamCore

/// Streams whose frames are all there but whose contents are not audio: a real file's frame
/// headers or MP4 index around random bytes from a seeded generator (the same bytes on every
/// run). What a decoder must count as undecodable, not play as silence or noise without a word.
public enum GarbledAudio {
    /// MPEG-1 Layer III `bytes` (a fixture such as `mp3-cbr128.mp3`) with the bytes after the
    /// header of each frame `garbles` picks (by index, from 0) replaced with random ones; with
    /// `impossible`, the first granule's `big_values` is then set above 288 (in a two-channel
    /// stream without CRCs: the side information's fifth byte all ones), which every decoder
    /// refuses, so exactly those frames are undecodable.
    public static func mp3(_ bytes: [UInt8], seed: UInt64, impossible: Bool = false, garbles: (Int) -> Bool) -> [UInt8] {
        var out = bytes
        var random = SplitMix64(seed: seed)
        for (frame, (index, size)) in frames(bytes).enumerated() where garbles(frame) {
            let end = min(index + size, out.count)
            for i in index + 4..<end { out[i] = UInt8(truncatingIfNeeded: random.next()) }
            if impossible, index + 8 < end { out[index + 8] = 0xFF }
        }
        return out
    }

    /// The frames (headers) `mp3` walks in `bytes`.
    public static func mp3FrameCount(_ bytes: [UInt8]) -> Int {
        frames(bytes).count
    }

    /// Where each MPEG-1 Layer III frame of `bytes` starts, and its size: the walk `mp3` makes
    /// (a byte at a time past what is not a frame header).
    private static func frames(_ bytes: [UInt8]) -> [(index: Int, size: Int)] {
        var found: [(index: Int, size: Int)] = []
        var index = 0
        while index + 4 <= bytes.count {
            guard let size = layerIIIFrameSize(bytes, at: index) else {
                index += 1
                continue
            }
            found.append((index, size))
            index += size
        }
        return found
    }

    /// An MP4 `bytes` whose index comes before its audio (`+faststart`, as
    /// `mp4-aac-faststart.m4a`) with every byte of its `mdat` box's contents replaced with
    /// random ones: the real index (`moov`) of random audio.
    public static func m4aHeadThenRandom(_ bytes: [UInt8], seed: UInt64) -> [UInt8]? {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 4..<offset + 8].elementsEqual("mdat".utf8) {
                var random = SplitMix64(seed: seed)
                var out = Array(bytes[..<(offset + 8)])
                out.reserveCapacity(bytes.count)
                for _ in offset + 8..<bytes.count { out.append(UInt8(truncatingIfNeeded: random.next())) }
                return out
            }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    /// The size of the MPEG-1 Layer III frame whose header is at `index`, if one is.
    private static func layerIIIFrameSize(_ bytes: [UInt8], at index: Int) -> Int? {
        let bitRates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        let sampleRates = [44100, 48000, 32000]
        guard bytes[index] == 0xFF, bytes[index + 1] & 0xFE == 0xFA else { return nil }
        let rateIndex = Int(bytes[index + 2] >> 2 & 3), bitRateIndex = Int(bytes[index + 2] >> 4)
        guard rateIndex < 3, (1..<15).contains(bitRateIndex) else { return nil }
        return 144_000 * bitRates[bitRateIndex] / sampleRates[rateIndex] + Int(bytes[index + 2] >> 1 & 1)
    }
}
