/// Readers of the small MP4 boxes the parser holds whole: each takes the box's contents (after
/// its header) and returns what it says, `nil` when too short.
package enum MP4LeafBoxes {
    /// What a track's sample description (`stsd`) holds.
    package enum SampleEntry: Hashable, Sendable {
        /// AAC (`mp4a` with an MPEG-4 or MPEG-2 AAC `esds`): the AudioSpecificConfig.
        case aac([UInt8])
        /// Anything else, named (e.g. "ALAC", "MP3 in MP4").
        case other(String)
    }

    /// An edit: where in the media it starts (media ticks) and how long it lasts (movie ticks).
    package struct Edit: Hashable, Sendable {
        package var mediaTime: Int64
        package var duration: Int64
    }

    /// iTunes' gapless figures: frames of priming and padding, and of the original audio.
    package struct GaplessFigures: Hashable, Sendable {
        package var delay: Int
        package var padding: Int
        package var frames: Int64
    }

    /// The version and flags of a full box.
    package static func versionAndFlags(_ body: UnsafeRawBufferPointer) -> (version: Int, flags: Int)? {
        guard body.count >= 4 else { return nil }
        return (Int(body[0]), Int(body.bigEndian(at: 1, count: 3)))
    }

    /// The timescale of `mvhd` or `mdhd` (ticks per second).
    package static func timescale(_ body: UnsafeRawBufferPointer) -> Int? {
        guard let (version, _) = versionAndFlags(body) else { return nil }
        let at = version == 1 ? 20 : 12
        guard body.count >= at + 4 else { return nil }
        let value = Int(body.bigEndian(at: at, count: 4))
        return value > 0 ? value : nil
    }

    /// The handler type of `hdlr` (`soun` for audio).
    package static func handler(_ body: UnsafeRawBufferPointer) -> FourCC? {
        body.count >= 12 ? FourCC(body, at: 8) : nil
    }

    /// The track ID of `tkhd`.
    package static func trackID(_ body: UnsafeRawBufferPointer) -> Int? {
        guard let (version, _) = versionAndFlags(body) else { return nil }
        let at = version == 1 ? 20 : 12
        return body.count >= at + 4 ? Int(body.bigEndian(at: at, count: 4)) : nil
    }

    /// The first edit that plays media (`elst`): where in the media it starts (media ticks) and
    /// how long it lasts (movie ticks). Empty edits (media time -1) are passed over.
    package static func edit(_ body: UnsafeRawBufferPointer) -> Edit? {
        guard let (version, _) = versionAndFlags(body), body.count >= 8 else { return nil }
        let count = Int(body.bigEndian(at: 4, count: 4))
        let fieldSize = version == 1 ? 8 : 4
        let entrySize = 2 * fieldSize + 4
        var at = 8
        for _ in 0..<min(count, 64) {
            guard body.count >= at + entrySize else { return nil }
            let duration = Int64(bitPattern: body.bigEndian(at: at, count: fieldSize))
            var mediaTime = Int64(bitPattern: body.bigEndian(at: at + fieldSize, count: fieldSize))
            if fieldSize == 4 { mediaTime = Int64(Int32(truncatingIfNeeded: mediaTime)) }
            if mediaTime >= 0 { return Edit(mediaTime: mediaTime, duration: max(duration, 0)) }
            at += entrySize
        }
        return nil
    }

    /// The first sample entry of `stsd`.
    package static func sampleEntry(_ body: UnsafeRawBufferPointer) -> SampleEntry? {
        guard body.count >= 16 else { return nil }
        let size = Int(body.bigEndian(at: 8, count: 4))
        let type = FourCC(body, at: 12)
        guard size >= 8, body.count >= 8 + size else { return nil }
        let entry = UnsafeRawBufferPointer(rebasing: body[16..<8 + size])
        let names: [FourCC: String] = [
            FourCC("alac"): "ALAC", FourCC("Opus"): "Opus", FourCC("fLaC"): "FLAC", FourCC("ac-3"): "AC-3",
            FourCC("ec-3"): "E-AC-3", FourCC(".mp3"): "MP3", FourCC("enca"): "encrypted audio",
        ]
        guard type == .mp4a else { return .other(names[type] ?? "'\(type)' audio") }
        // The AudioSampleEntry: 28 bytes, 16 or 36 more for QuickTime sound versions 1 and 2.
        guard entry.count >= 28 else { return nil }
        let soundVersion = entry.bigEndian(at: 8, count: 2)
        var at = 28 + (soundVersion == 1 ? 16 : soundVersion == 2 ? 36 : 0)
        while at + 8 <= entry.count {
            let childSize = Int(entry.bigEndian(at: at, count: 4))
            let childType = FourCC(entry, at: at + 4)
            guard childSize >= 8, at + childSize <= entry.count else { return nil }
            let child = UnsafeRawBufferPointer(rebasing: entry[at + 8..<at + childSize])
            if childType == .esds { return esds(child) }
            if childType == .wave, let inner = waveESDS(child) { return inner }
            at += childSize
        }
        return nil
    }

    /// The `esds` inside QuickTime's `wave` box.
    private static func waveESDS(_ body: UnsafeRawBufferPointer) -> SampleEntry? {
        var at = 0
        while at + 8 <= body.count {
            let size = Int(body.bigEndian(at: at, count: 4))
            guard size >= 8, at + size <= body.count else { return nil }
            if FourCC(body, at: at + 4) == .esds { return esds(UnsafeRawBufferPointer(rebasing: body[at + 8..<at + size])) }
            at += size
        }
        return nil
    }

    /// The decoder configuration of an elementary stream descriptor box (`esds`): a full box
    /// around an ES_Descriptor.
    private static func esds(_ body: UnsafeRawBufferPointer) -> SampleEntry? {
        guard body.count > 4 else { return nil }
        return elementaryStream(UnsafeRawBufferPointer(rebasing: body[4...]))
    }

    /// The decoder configuration of an ES_Descriptor (ISO/IEC 14496-1), as an `esds` box holds
    /// it and as CAF's magic cookie for AAC is.
    package static func elementaryStream(_ body: UnsafeRawBufferPointer) -> SampleEntry? {
        var at = 0
        // ES_Descriptor (tag 3): ES_ID, flags and what they add.
        guard let (tag, _) = descriptor(body, &at), tag == 3, at + 3 <= body.count else { return nil }
        let flags = body[at + 2]
        at += 3
        if flags & 0x80 != 0 { at += 2 }
        if flags & 0x40 != 0 {
            guard at < body.count else { return nil }
            at += 1 + Int(body[at])
        }
        if flags & 0x20 != 0 { at += 2 }
        // DecoderConfigDescriptor (tag 4): the object type indication first.
        guard let (configTag, _) = descriptor(body, &at), configTag == 4, at + 13 <= body.count else { return nil }
        let objectType = body[at]
        at += 13
        switch objectType {
        case 0x40, 0x66, 0x67, 0x68:
            // DecoderSpecificInfo (tag 5): the AudioSpecificConfig.
            guard let (infoTag, length) = descriptor(body, &at), infoTag == 5, length > 0, at + length <= body.count else {
                return nil
            }
            return .aac(Array(body[at..<at + length]))
        case 0x69, 0x6B: return .other("MP3")
        default: return .other("MPEG-4 object type 0x\(String(objectType, radix: 16))")
        }
    }

    /// A descriptor's tag and length (the length in 1 to 4 bytes of 7 bits); moves `at` to its
    /// contents.
    private static func descriptor(_ body: UnsafeRawBufferPointer, _ at: inout Int) -> (tag: UInt8, length: Int)? {
        guard at < body.count else { return nil }
        let tag = body[at]
        at += 1
        var length = 0
        for _ in 0..<4 {
            guard at < body.count else { return nil }
            let byte = body[at]
            at += 1
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return (tag, length) }
        }
        return (tag, length)
    }

    /// Nero chapters (`chpl`): start times in 100 ns units and titles.
    package static func chapters(_ body: UnsafeRawBufferPointer) -> [AudioChapter] {
        guard let (version, _) = versionAndFlags(body) else { return [] }
        var at = version == 1 ? 8 : 4
        guard at < body.count else { return [] }
        let count = Int(body[at])
        at += 1
        var chapters: [AudioChapter] = []
        for _ in 0..<count {
            guard at + 9 <= body.count else { break }
            let start = body.bigEndian(at: at, count: 8)
            let length = Int(body[at + 8])
            at += 9
            guard at + length <= body.count else { break }
            let title = String(decoding: body[at..<at + length], as: UTF8.self)
            at += length
            chapters.append(AudioChapter(startTime: Double(start) / 10_000_000, title: title))
        }
        return chapters
    }

    /// The text of the first `data` box in an `ilst` item (UTF-8, type 1), or `nil`.
    package static func itemText(_ body: UnsafeRawBufferPointer) -> String? {
        var at = 0
        while at + 16 <= body.count {
            let size = Int(body.bigEndian(at: at, count: 4))
            guard size >= 8, at + size <= body.count else { return nil }
            if FourCC(body, at: at + 4) == .data, size >= 16 {
                guard body.bigEndian(at: at + 8, count: 4) == 1 else { return nil }
                return String(decoding: body[at + 16..<at + size], as: UTF8.self)
            }
            at += size
        }
        return nil
    }

    /// The name of a freeform (`----`) item, from its `name` box.
    package static func freeformName(_ body: UnsafeRawBufferPointer) -> String? {
        var at = 0
        while at + 12 <= body.count {
            let size = Int(body.bigEndian(at: at, count: 4))
            guard size >= 8, at + size <= body.count else { return nil }
            if FourCC(body, at: at + 4) == .name { return String(decoding: body[at + 12..<at + size], as: UTF8.self) }
            at += size
        }
        return nil
    }

    /// iTunes' gapless figures (`iTunSMPB`: hex fields, the second the priming frames, the third
    /// the padding, the fourth the frames of the original audio).
    package static func iTunSMPB(_ text: String) -> GaplessFigures? {
        let fields = text.split(separator: " ").map { Int64($0, radix: 16) }
        guard fields.count >= 4, let delay = fields[1], let padding = fields[2], let frames = fields[3],
            delay >= 0, padding >= 0, frames > 0, delay < 1 << 20, padding < 1 << 20, frames < 1 << 60
        else { return nil }
        return GaplessFigures(delay: Int(delay), padding: Int(padding), frames: frames)
    }
}
