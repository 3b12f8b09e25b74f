/// Xiph lacing, as Matroska's CodecPrivate keeps Vorbis's three header packets in one run of
/// bytes (and the format's `magicCookie` does): the count of packets less one, each packet's
/// length but the last's as a run of 255s and a final byte below 255, then the packets. Pure.
package enum XiphLacing {
    /// `packets` laced into one run of bytes (at least one packet).
    package static func lace(_ packets: [[UInt8]]) -> [UInt8] {
        var laced: [UInt8] = [UInt8(packets.count - 1)]
        for packet in packets.dropLast() {
            laced += [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
        }
        for packet in packets { laced += packet }
        return laced
    }

    /// Where the three packets of `laced` lie in it; nil unless it holds three, the last not empty.
    package static func unlaceThree(_ laced: [UInt8]) -> [Range<Int>]? {
        guard laced.first == 2 else { return nil }
        var index = 1
        var lengths: [Int] = []
        for _ in 0..<2 {
            var length = 0
            while index < laced.count, laced[index] == 255 {
                length += 255
                index += 1
            }
            guard index < laced.count else { return nil }
            length += Int(laced[index])
            index += 1
            lengths.append(length)
        }
        let third = laced.count - index - lengths[0] - lengths[1]
        guard third > 0 else { return nil }
        var ranges: [Range<Int>] = []
        for length in lengths + [third] {
            ranges.append(index..<index + length)
            index += length
        }
        return ranges
    }
}
