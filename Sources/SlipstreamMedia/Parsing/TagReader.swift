/// Reads a tag block wherever one appears between packets: ID3v2 (v2.2-2.4, frame by frame,
/// keeping only the text frames it wants and dropping the rest, album art included, without
/// holding it), ID3v1, APE and Lyrics3. Never emits audio.
package struct TagReader: Hashable, Sendable {
    private enum Mode: Hashable, Sendable {
        /// Inside an ID3v2 tag: `remaining` bytes of frames, then `trailer` bytes (a footer).
        case id3v2(version: Int, remaining: Int, trailer: Int, unsynchronised: Bool, extendedHeader: Bool)
        /// Inside an APE tag: `remaining` bytes of items, then the 32-byte footer.
        case ape(remaining: Int)
        /// Inside Lyrics3: text up to `LYRICSEND` (v1) or `LYRICS200` (v2), `scanned` so far.
        case lyrics3(scanned: Int)
        /// The tag has been read.
        case finished
    }

    private var mode: Mode

    /// Text frames longer than this are skipped rather than read (bytes).
    private static let maximumTextSize = 16 * 1024
    /// Lyrics3 longer than this is not believed to be Lyrics3 (bytes; v2 allows 999,999).
    private static let maximumLyricsSize = 1_000_016

    /// What is at the front of a window.
    package enum Detection {
        /// No tag starts here.
        case none
        /// A tag may start here; call again with at least this many bytes.
        case need(Int)
        /// A tag starts here: take `step`, then continue with `reader` if there is one.
        case tag(step: ParseStep, reader: TagReader?)
    }

    /// Looks for the start of a tag at the front of `window` and reads fixed-size tags (ID3v1)
    /// at once into `tags`.
    package static func detect(_ window: UnsafeRawBufferPointer, isFinal: Bool, tags: inout AudioTags) -> Detection {
        guard !window.isEmpty, mayStart(window, at: 0) else { return .none }
        for magic in Magic.allCases where window.hasPrefix(magic.text) {
            guard window.count >= magic.length else { return isFinal ? .none : .need(magic.length) }
            return start(magic, window, tags: &tags)
        }
        return .none
    }

    /// Whether a tag may start at `index` (its magic, possibly cut off by the window's end).
    package static func mayStart(_ window: UnsafeRawBufferPointer, at index: Int) -> Bool {
        switch window[index] {
        case UInt8(ascii: "I"): window.hasPrefix("ID3", at: index)
        case UInt8(ascii: "T"): window.hasPrefix("TAG", at: index)
        case UInt8(ascii: "A"): window.hasPrefix("APETAGEX", at: index)
        case UInt8(ascii: "L"): window.hasPrefix("LYRICSBEGIN", at: index)
        default: false
        }
    }

    private static func start(_ magic: Magic, _ window: UnsafeRawBufferPointer, tags: inout AudioTags) -> Detection {
        switch magic {
        case .id3v2:
            let version = Int(window[3]), flags = window[5]
            guard (2...4).contains(version), window[4] != 0xFF, let size = window.synchsafe(at: 6) else {
                return .none
            }
            tags.noteKind(version == 2 ? .id3v22 : version == 3 ? .id3v23 : .id3v24)
            let footer = version == 4 && flags & 0x10 != 0 ? 10 : 0
            // v2.2/2.3 unsynchronise the whole tag, frame headers included: not walkable.
            if flags & 0x80 != 0, version < 4 { return .tag(step: .skip(Int64(10 + size + footer)), reader: nil) }
            let mode = Mode.id3v2(
                version: version, remaining: size, trailer: footer,
                unsynchronised: flags & 0x80 != 0, extendedHeader: flags & 0x40 != 0 && version > 2)
            return .tag(step: .skip(10), reader: TagReader(mode: mode))
        case .id3v1:
            tags.noteKind(.id3v1)
            for (field, range) in [(AudioTags.Field.title, 3..<33), (.artist, 33..<63), (.album, 63..<93)] {
                tags.set(field, TagText.latin1(UnsafeRawBufferPointer(rebasing: window[range])), from: .id3v1)
            }
            return .tag(step: .skip(128), reader: nil)
        case .ape:
            let size = Int(window.littleEndian(at: 12, count: 4))
            let isHeader = window.littleEndian(at: 20, count: 4) & (1 << 29) != 0
            tags.noteKind(.ape)
            guard isHeader, size >= 32 else { return .tag(step: .skip(32), reader: nil) }
            return .tag(step: .skip(32), reader: TagReader(mode: .ape(remaining: size - 32)))
        case .lyrics3:
            tags.noteKind(.lyrics3)
            return .tag(step: .skip(11), reader: TagReader(mode: .lyrics3(scanned: 11)))
        }
    }

    /// Reads on from the front of `window`; `nil` once the tag has ended.
    package mutating func step(_ window: UnsafeRawBufferPointer, isFinal: Bool, tags: inout AudioTags) -> ParseStep? {
        switch mode {
        case .id3v2(let version, let remaining, let trailer, let unsynchronised, let extendedHeader):
            if remaining == 0 {
                guard trailer > 0 else { return nil }
                mode = .id3v2(version: version, remaining: 0, trailer: 0, unsynchronised: false, extendedHeader: false)
                return .skip(Int64(trailer))
            }
            let (step, used) = id3v2Frame(
                window, version: version, remaining: remaining,
                unsynchronised: unsynchronised, extendedHeader: extendedHeader,
                isFinal: isFinal, tags: &tags)
            mode = .id3v2(
                version: version, remaining: remaining - used, trailer: trailer,
                unsynchronised: unsynchronised, extendedHeader: extendedHeader && used == 0)
            return step
        case .ape(let remaining):
            guard remaining > 0 else { return nil }
            let (step, used) = apeItem(window, remaining: remaining, isFinal: isFinal, tags: &tags)
            mode = .ape(remaining: remaining - used)
            return step
        case .lyrics3(let scanned):
            return lyrics3(window, scanned: scanned, isFinal: isFinal)
        case .finished:
            return nil
        }
    }

    /// One ID3v2 frame (or the extended header, or the padding): the step and the bytes it uses.
    private func id3v2Frame(
        _ window: UnsafeRawBufferPointer, version: Int, remaining: Int, unsynchronised: Bool,
        extendedHeader: Bool, isFinal: Bool, tags: inout AudioTags
    ) -> (ParseStep, Int) {
        let headerSize = version == 2 ? 6 : 10
        let wanted = min(remaining, extendedHeader ? 4 : headerSize)
        guard window.count >= wanted else { return isFinal ? (.skip(Int64(remaining)), remaining) : (.need(wanted), 0) }
        if extendedHeader {
            // v2.3: the size excludes its own 4 bytes; v2.4: synchsafe and includes them.
            let size = version == 3 ? Int(window.bigEndian(at: 0, count: 4)) + 4 : (window.synchsafe(at: 0) ?? remaining)
            let used = min(max(size, 4), remaining)
            return (.skip(Int64(used)), used)
        }
        // Padding, or too little left for a frame: the rest of the tag is skipped.
        guard remaining >= headerSize, window[0] != 0 else { return (.skip(Int64(remaining)), remaining) }
        let bodySize: Int
        switch version {
        case 2: bodySize = Int(window.bigEndian(at: 3, count: 3))
        case 3: bodySize = Int(window.bigEndian(at: 4, count: 4))
        default: bodySize = window.synchsafe(at: 4) ?? Int(window.bigEndian(at: 4, count: 4))
        }
        let frameSize = headerSize + bodySize
        guard frameSize <= remaining else { return (.skip(Int64(remaining)), remaining) }
        let flags = version == 2 ? 0 : Int(window.bigEndian(at: 8, count: 2))
        // Compressed or encrypted frames are not read (v2.3: 0x0080/0x0040; v2.4: 0x0008/0x0004).
        let opaque = version == 3 ? flags & 0x00C0 != 0 : version == 4 && flags & 0x000C != 0
        let field = Self.field(window, version: version)
        guard let field, !opaque, bodySize <= Self.maximumTextSize else { return (.skip(Int64(frameSize)), frameSize) }
        guard window.count >= frameSize else { return isFinal ? (.skip(Int64(remaining)), remaining) : (.need(frameSize), 0) }
        var body = UnsafeRawBufferPointer(rebasing: window[headerSize..<frameSize])
        let grouped = version == 3 ? flags & 0x0020 != 0 : version == 4 && flags & 0x0040 != 0
        if grouped, body.count > 0 { body = UnsafeRawBufferPointer(rebasing: body[1...]) }
        if version == 4, flags & 0x0001 != 0, body.count >= 4 { body = UnsafeRawBufferPointer(rebasing: body[4...]) }
        let kind: AudioTags.Kind = version == 2 ? .id3v22 : version == 3 ? .id3v23 : .id3v24
        let text =
            version == 4 && (unsynchronised || flags & 0x0002 != 0)
            ? TagText.resynchronised(body).withUnsafeBytes { TagText.id3v2($0) } : TagText.id3v2(body)
        if let text { tags.set(field, text, from: kind) }
        return (.skip(Int64(frameSize)), frameSize)
    }

    /// The tag field an ID3v2 frame id at the front of `window` fills, if wanted.
    private static func field(_ window: UnsafeRawBufferPointer, version: Int) -> AudioTags.Field? {
        if version == 2 {
            if window.starts(with: "TT2") { return .title }
            if window.starts(with: "TP1") { return .artist }
            return window.starts(with: "TAL") ? .album : nil
        }
        if window.starts(with: "TIT2") { return .title }
        if window.starts(with: "TPE1") { return .artist }
        return window.starts(with: "TALB") ? .album : nil
    }

    /// One APE item (a value size, flags, a NUL-terminated key of at most 255 bytes, the
    /// value): the step and the bytes it uses.
    private func apeItem(
        _ window: UnsafeRawBufferPointer, remaining: Int, isFinal: Bool, tags: inout AudioTags
    ) -> (ParseStep, Int) {
        let skipAll = (ParseStep.skip(Int64(remaining)), remaining)
        let keyLimit = min(remaining, 8 + 256)
        guard let keyEnd = (8..<max(8, min(window.count, keyLimit))).first(where: { window[$0] == 0 }) else {
            return window.count >= keyLimit || isFinal ? skipAll : (.need(keyLimit), 0)
        }
        let valueSize = Int(window.littleEndian(at: 0, count: 4))
        let itemSize = keyEnd + 1 + valueSize
        guard itemSize <= remaining else { return skipAll }
        guard valueSize <= Self.maximumTextSize else { return (.skip(Int64(itemSize)), itemSize) }
        guard window.count >= itemSize else { return isFinal ? skipAll : (.need(itemSize), 0) }
        let key = String(decoding: window[8..<keyEnd], as: UTF8.self).lowercased()
        let field: AudioTags.Field? = key == "title" ? .title : key == "artist" ? .artist : key == "album" ? .album : nil
        if let field {
            let value = window[(keyEnd + 1)..<itemSize].prefix { $0 != 0 }
            tags.set(field, String(decoding: value, as: UTF8.self), from: .ape)
        }
        return (.skip(Int64(itemSize)), itemSize)
    }

    /// Lyrics3 text: skipped up to and including its end marker.
    private mutating func lyrics3(_ window: UnsafeRawBufferPointer, scanned: Int, isFinal: Bool) -> ParseStep? {
        let markerLength = 9
        var i = 0
        while i + markerLength <= window.count {
            if window.starts(with: "LYRICS200", at: i) || window.starts(with: "LYRICSEND", at: i) {
                mode = .finished
                return .skip(Int64(i + markerLength))
            }
            i += 1
        }
        guard scanned < Self.maximumLyricsSize else { return nil }
        if isFinal { return window.isEmpty ? nil : .skip(Int64(window.count)) }
        // Keep the last bytes: they may be the start of the marker.
        let dropped = max(window.count - (markerLength - 1), 0)
        mode = .lyrics3(scanned: scanned + dropped)
        return dropped > 0 ? .skip(Int64(dropped)) : .need(markerLength)
    }
}

/// The bytes that start each kind of tag, and how many are needed to read its header.
private enum Magic: CaseIterable {
    case id3v2, id3v1, ape, lyrics3

    package var text: StaticString {
        switch self {
        case .id3v2: "ID3"
        case .id3v1: "TAG"
        case .ape: "APETAGEX"
        case .lyrics3: "LYRICSBEGIN"
        }
    }

    package var length: Int {
        switch self {
        case .id3v2: 10
        case .id3v1: 128
        case .ape: 32
        case .lyrics3: 11
        }
    }
}
