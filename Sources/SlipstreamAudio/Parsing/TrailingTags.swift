/// The tags at the end of a file, read from its last bytes alone (for `slipstream info`, which
/// fetches the tail with a range request rather than the whole file): ID3v1, an APE tag before
/// it (found from its footer), and a Lyrics3v2 block between the two.
enum TrailingTags {
    /// The tags in `tail`, the last bytes of a file.
    static func read(_ tail: UnsafeRawBufferPointer) -> AudioTags {
        var tags = AudioTags()
        var end = tail.count
        if end >= 128, tail.starts(with: "TAG", at: end - 128) {
            _ = TagReader.detect(UnsafeRawBufferPointer(rebasing: tail[(end - 128)...]), isFinal: true, tags: &tags)
            end -= 128
        }
        // Lyrics3v2: "…" + 6-digit size + "LYRICS200", the size covering everything before it.
        if end >= 15, tail.starts(with: "LYRICS200", at: end - 9) {
            tags.noteKind(.lyrics3)
            let digits = tail[(end - 15)..<(end - 9)]
            if let size = Int(String(decoding: digits, as: UTF8.self)), size + 15 <= end { end -= size + 15 }
        }
        guard end >= 32, tail.starts(with: "APETAGEX", at: end - 32) else { return tags }
        let size = Int(tail.littleEndian(at: end - 32 + 12, count: 4))
        let hasHeader = tail.littleEndian(at: end - 32 + 20, count: 4) & (1 << 31) != 0
        let start = end - size - (hasHeader ? 32 : 0)
        guard hasHeader, size >= 32, start >= 0 else {
            tags.noteKind(.ape)
            return tags
        }
        var window = UnsafeRawBufferPointer(rebasing: tail[start..<end])
        guard case .tag(.skip(let headerSize), var reader?) = TagReader.detect(window, isFinal: true, tags: &tags) else {
            return tags
        }
        window = UnsafeRawBufferPointer(rebasing: window[Int(headerSize)...])
        while let step = reader.step(window, isFinal: true, tags: &tags), case .skip(let count) = step,
              count > 0, count <= window.count
        {
            window = UnsafeRawBufferPointer(rebasing: window[Int(count)...])
        }
        return tags
    }
}
