/// The tags at the end of a file, read from its last bytes alone (for `slipstream info`, which
/// fetches the tail with a range request rather than the whole file): ID3v1, an APE tag before
/// it (found from its footer), and a Lyrics3v2 block between the two.
package enum TrailingTags {
    /// Where the trailing blocks sit in a tail, found from its end backwards.
    private struct Layout {
        /// The tail ends with a 128-byte ID3v1 block.
        package var hasID3v1 = false
        /// A Lyrics3v2 block comes before the ID3v1 block (or ends the tail).
        package var hasLyrics3 = false
        /// An APE tag whose footer is in the tail: where it ends, its size as the footer gives
        /// it (items and footer), and whether a header comes before the items.
        package var ape: (end: Int, size: Int, hasHeader: Bool)?
        /// Where the first block starts, as an index into the tail; negative when it starts,
        /// or may start, before the tail.
        package var start: Int
    }

    /// The tags in `tail`, the last bytes of a file.
    package static func read(_ tail: UnsafeRawBufferPointer) -> AudioTags {
        var tags = AudioTags()
        let layout = layout(tail)
        if layout.hasID3v1 {
            _ = TagReader.detect(UnsafeRawBufferPointer(rebasing: tail[(tail.count - 128)...]), isFinal: true, tags: &tags)
        }
        if layout.hasLyrics3 { tags.noteKind(.lyrics3) }
        guard let ape = layout.ape else { return tags }
        guard ape.hasHeader, ape.size >= 32, layout.start >= 0 else {
            tags.noteKind(.ape)
            return tags
        }
        var window = UnsafeRawBufferPointer(rebasing: tail[layout.start..<ape.end])
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

    /// How many bytes at the end of the file the blocks whose footers are in `tail` take: 0
    /// when there are none, more than `tail.count` when one starts, or may start (an APE
    /// footer just before the tail), before it.
    package static func length(_ tail: UnsafeRawBufferPointer) -> Int {
        tail.count - layout(tail).start
    }

    private static func layout(_ tail: UnsafeRawBufferPointer) -> Layout {
        var layout = Layout(start: tail.count)
        if layout.start >= 128, tail.starts(with: "TAG", at: layout.start - 128) {
            layout.hasID3v1 = true
            layout.start -= 128
        }
        // Lyrics3v2: "…" + 6-digit size + "LYRICS200", the size covering everything before it.
        if layout.start >= 15, tail.starts(with: "LYRICS200", at: layout.start - 9) {
            layout.hasLyrics3 = true
            let digits = tail[(layout.start - 15)..<(layout.start - 9)]
            guard let size = Int(String(decoding: digits, as: UTF8.self)), size >= 0 else { return layout }
            layout.start -= size + 15
            if layout.start < 0 { return layout }
        }
        guard layout.start >= 32 else {
            // Too few bytes before the blocks to tell whether an APE footer ends there.
            layout.start -= 32
            return layout
        }
        guard tail.starts(with: "APETAGEX", at: layout.start - 32) else { return layout }
        let size = Int(tail.littleEndian(at: layout.start - 32 + 12, count: 4))
        let hasHeader = tail.littleEndian(at: layout.start - 32 + 20, count: 4) & (1 << 31) != 0
        layout.ape = (layout.start, size, hasHeader)
        layout.start -= size + (hasHeader ? 32 : 0)
        return layout
    }
}
