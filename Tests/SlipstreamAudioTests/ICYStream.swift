/// Builds what a SHOUTcast/Icecast server sends a client that asked for metadata: `audio` with
/// a block after every `interval` bytes. Block k (from 0) holds `StreamTitle='<titles[k]>';` as
/// the given bytes (any encoding) when there is one and it is not nil, else is empty (a length
/// byte of 0).
enum ICYStream {
    static func build(audio: [UInt8], interval: Int, titles: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(audio.count + audio.count / interval * 64)
        var index = 0
        var block = 0
        while index < audio.count {
            let end = min(index + interval, audio.count)
            out += audio[index..<end]
            index = end
            guard end % interval == 0 else { break }
            if block < titles.count, let title = titles[block] {
                var text = Array("StreamTitle='".utf8) + title + Array("';".utf8)
                while text.count % 16 != 0 { text.append(0) }
                out.append(UInt8(text.count / 16))
                out += text
            } else {
                out.append(0)
            }
            block += 1
        }
        return out
    }

    /// The same, for titles given as text (UTF-8).
    static func build(audio: [UInt8], interval: Int, titles: [String]) -> [UInt8] {
        build(audio: audio, interval: interval, titles: titles.map { Array($0.utf8) })
    }
}
