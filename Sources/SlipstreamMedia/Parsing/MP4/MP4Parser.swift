/// The MP4 (ISO BMFF: MP4, M4A, M4B) stage of `AudioStreamParser`: boxes are walked as they
/// pass, the small ones that matter held whole (`MP4LeafBoxes`), the sample tables streamed
/// into an `MP4SampleTable` a few KiB at a time, every other box (a cover picture, video, `free`)
/// skipped unheld. The first AAC audio track plays: once `moov` is known, the samples are cut
/// out of `mdat` in file order as raw access units (`.aacRaw`), with the edit list or
/// `iTunSMPB` as gapless delay and padding, `ilst` tags and Nero chapters.
///
/// `moov` after `mdat`: the audio is skipped (`prefersJump` tells a reader that can seek to
/// jump over it rather than read it), and once the index is read the parser asks for the
/// audio's bytes again with a `.jump`. Fragmented MP4 (`moof`/`traf`/`tfhd`/`tfdt`/`trun` before
/// each `mdat`) plays fragment by fragment, its packets placed by their fragment's decode time
/// (`tfdt`), its segment index (`sidx`) giving exact seek points; after a jump into it, the
/// next `moof` is looked for.
package struct MP4Parser: Sendable {
    package enum Phase: Hashable, Sendable {
        case boxes
        /// Streaming a table's entries: which table, entries left, bytes each, the box's end.
        case table(Table, remaining: Int, entrySize: Int, end: Int64)
        /// Cutting the sample table's samples out of the file.
        case samples
        /// Cutting a fragment's samples out of its `mdat` (which ends at `end`, `nil`: the file's end).
        case fragmentSamples(end: Int64?)
        /// After a jump into a fragmented file: looking for the next `moof`.
        case findFragment
        /// Nothing more to play: every byte is skipped.
        case done
    }

    package enum Table: Hashable, Sendable {
        case stts, stsc, stsz, stco, co64
        /// A track fragment run with these flags (which per-sample fields it has).
        case trun(flags: Int)
    }

    /// A box being walked, and where it ends (`nil`: the end of the file).
    package struct Container: Hashable, Sendable {
        package var type: FourCC
        package var end: Int64?
    }

    /// What a `trak` said, while it is read.
    package struct TrackBuilder: Hashable, Sendable {
        package var trackID = 0
        package var timescale = 0
        /// Its tables are kept: it is the first audio track.
        package var isCandidate = false
        /// Its tables are kept too: it is a text track (a chapter track, perhaps).
        package var isText = false
        /// The text tracks its `tref/chap` names as its chapters.
        package var chapterTrackIDs: [Int] = []
        /// Its `stts` runs, when it is a text track (at most `MP4ChapterTrack.maximumChapters`).
        package var timeRuns: [MP4ChapterTrack.TimeRun] = []
        package var edit: MP4LeafBoxes.Edit?
        package var entry: MP4LeafBoxes.SampleEntry?
        package var table = MP4SampleTable()
        /// The sum of the sample durations (`stts`), in media ticks.
        package var durationTicks: Int64 = 0

    }

    /// The track that plays.
    package struct AudioTrack: Hashable, Sendable {
        package var config: AudioSpecificConfig
        /// The AudioSpecificConfig's bytes.
        package var cookie: [UInt8]
        package var track: TrackBuilder
        package var table: MP4SampleTable { track.table }
    }

    /// The largest box held whole (bytes); larger ones are skipped.
    package static let maximumHeldBox = 256 << 10
    /// The largest sample (bytes): AAC's is 768 bytes a channel.
    package static let maximumSampleSize = 64 << 10
    /// Boxes nested deeper than this are refused.
    package static let maximumDepth = 16
    /// Jumps back to a sample that lies before the one just read, at most.
    package static let maximumBackwardJumps = 16
    /// Bytes of table entries read per step.
    package static let tableChunk = 4096

    package var phase = Phase.boxes
    package var containers: [Container] = []
    package var track: TrackBuilder?
    package var audio: AudioTrack?
    /// The codec of an audio track that cannot play, for the error when no track can.
    package var otherCodec: String?
    package var movieTimescale = 1000
    package var sawMoov = false
    /// Where the first `mdat` met before `moov` starts: the jump's target once `moov` is read.
    package var firstMdat: Int64?
    /// Where the last top-level box began: an error at the stream's end is named there, which
    /// a reader that jumps over a box and one that reads through it both reach.
    package var lastTopLevelBox: Int64?
    package var cursor: MP4SampleCursor?
    package var fragment = MP4Fragment()
    /// Where the first top-level `moof` starts: a fragmented file's seeks probe from there.
    package private(set) var firstFragmentOffset: Int64?
    /// A fragment dated the audio's samples (`tfdt`): packets after a jump are placed exactly.
    package private(set) var hasDecodeTimes = false
    /// The text tracks read (at most 4), and the title samples of the audio's chapter track
    /// still to be read from `mdat`, in file order, with the chapters read so far.
    package var textTracks: [MP4ChapterTrack] = []
    package var chapterReads: [MP4ChapterTrack.Sample] = []
    package var chapters: [AudioChapter] = []
    /// iTunes' gapless figures, once read.
    package var smpb: MP4LeafBoxes.GaplessFigures?
    /// The skip being returned is of audio read later: a reader that can seek should jump it.
    package private(set) var prefersJump = false
    package var backwardJumps = 0
    /// Where the next bytes must come from, set while closing a box.
    package var jumpTarget: Int64?

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        prefersJump = false
        switch phase {
        case .boxes: return try box(window, offset: offset, state: &state)
        case .table(let table, let remaining, let entrySize, let end):
            return try tableStep(window, offset: offset, table, remaining: remaining, entrySize: entrySize, end: end, state: &state)
        case .samples: return try sample(window, offset: offset, state: &state)
        case .fragmentSamples(let end): return try fragmentSample(window, offset: offset, end: end, state: &state)
        case .findFragment: return findFragment(window, isFinal: isFinal)
        case .done: return .skip(Int64(window.count))
        }
    }

    /// The error at the stream's end, if it ended before the parser could play anything.
    package func failureAtEnd(_ offset: Int64) -> AudioParserError? {
        guard !sawMoov else { return nil }
        // Named at the audio it follows, else at the box it ends in: the same wherever the
        // reader stopped (a box's size may claim gigabytes past the end).
        return mp4Malformed(
            "the file ends before its index (moov box): it is truncated or not a whole MP4", firstMdat ?? lastTopLevelBox ?? offset)
    }

    /// After a discontinuity to `offset`: from the start, the boxes are walked again (the tables
    /// kept); inside the audio, the next sample starting at or after `offset` is next.
    package mutating func resynchronise(at offset: Int64) {
        jumpTarget = nil
        prefersJump = false
        if offset == 0 {
            phase = .boxes
            containers = []
            track = nil
            fragment.reset(moofOffset: 0)
            cursor = audio?.table.firstSample()
            return
        }
        if let audio, audio.table.sampleCount == 0, sawMoov {
            // Fragmented: the boxes go on at the next movie fragment.
            phase = .findFragment
            containers = []
            fragment.reset(moofOffset: 0)
            return
        }
        cursor = audio?.table.sample(atOrAfter: offset)
        phase = cursor == nil ? .done : .samples
    }

    // MARK: - Boxes

    private mutating func box(_ window: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState) throws(AudioParserError)
        -> ParseStep
    {
        guard let header = try MP4BoxHeader.read(window, offset: offset) else { return .need(16) }
        if containers.isEmpty { lastTopLevelBox = offset }
        let parentEnd = containers.last?.end
        let end = header.size.map { offset + $0 } ?? parentEnd
        if let parentEnd, let end, end > parentEnd {
            throw mp4Malformed("box '\(header.type)' of \(header.size ?? 0) bytes overruns its parent", offset)
        }
        let parent = containers.last?.type
        let type = header.type
        let headerSize = Int64(header.headerSize)
        switch (parent, type) {
        case (nil, .moov) where !sawMoov, (.moov?, .trak), (.trak?, .mdia), (.mdia?, .minf), (.minf?, .stbl),
            (.trak?, .edts), (.trak?, .tref), (.moov?, .udta), (.trak?, .udta), (.moov?, .mvex), (.meta?, .ilst), (nil, .moof),
            (.moof?, .traf):
            if type == .trak { track = TrackBuilder() }
            if type == .moof {
                fragment.reset(moofOffset: offset)
                if firstFragmentOffset == nil { firstFragmentOffset = offset }
            }
            if type == .traf { fragment.beginTrackFragment() }
            return try enter(type, end: end, skipping: headerSize, at: offset, state: &state)
        case (.udta?, .meta), (.moov?, .meta):
            guard window.count >= header.headerSize + 8 else { return .need(header.headerSize + 8) }
            // ISO's meta is a full box (4 bytes of version and flags); QuickTime's is not.
            let isQuickTime = FourCC(window, at: header.headerSize + 4) == .hdlr
            return try enter(type, end: end, skipping: headerSize + (isQuickTime ? 0 : 4), at: offset, state: &state)
        case (nil, .mdat):
            return try mdat(header, end: end, at: offset, state: &state)
        case (.stbl?, .stts), (.stbl?, .stsc), (.stbl?, .stsz), (.stbl?, .stco), (.stbl?, .co64):
            guard track?.isCandidate == true || track?.isText == true, let end else {
                return try skip(to: end, from: offset, state: &state)
            }
            return try beginTable(type, window, header: header, end: end, at: offset, state: &state)
        case (.traf?, .trun):
            guard fragment.isActive, audio != nil, let end else { return try skip(to: end, from: offset, state: &state) }
            return try beginTable(type, window, header: header, end: end, at: offset, state: &state)
        case (.moov?, .mvhd), (.trak?, .tkhd), (.mdia?, .mdhd), (.mdia?, .hdlr), (.stbl?, .stsd), (.edts?, .elst),
            (.udta?, .chpl), (.tref?, .chap), (.mvex?, .trex), (.traf?, .tfhd), (.traf?, .tfdt), (nil, .sidx), (.ilst?, _):
            guard let size = header.size, size <= Self.maximumHeldBox, type != .covr, let end else {
                return try skip(to: end, from: offset, state: &state)
            }
            guard window.count >= Int(size) else { return .need(Int(size)) }
            let body = UnsafeRawBufferPointer(rebasing: window[header.headerSize..<Int(size)])
            read(type, parent: parent, body, end: end, state: &state)
            return try moved(to: end, .skip(size), state: &state)
        default:
            return try skip(to: end, from: offset, state: &state)
        }
    }

    private mutating func enter(
        _ type: FourCC, end: Int64?, skipping count: Int64, at offset: Int64, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard containers.count < Self.maximumDepth else { throw mp4Malformed("boxes nested too deep", offset) }
        containers.append(Container(type: type, end: end))
        return try moved(to: offset + count, .skip(count), state: &state)
    }

    /// Skips to `end` (the file's end when `nil`: nothing more is played).
    private mutating func skip(to end: Int64?, from offset: Int64, state: inout StreamState) throws(AudioParserError) -> ParseStep {
        guard let end else {
            phase = .done
            return .skip(0)
        }
        return try moved(to: end, .skip(end - offset), state: &state)
    }

    /// The step that moves to `position`, after closing the boxes that end there; a jump instead
    /// when closing one asks for it.
    package mutating func moved(to position: Int64, _ step: ParseStep, state: inout StreamState) throws(AudioParserError) -> ParseStep {
        while let last = containers.last, let end = last.end, end <= position {
            containers.removeLast()
            try close(last.type, at: end, state: &state)
        }
        if let target = jumpTarget {
            jumpTarget = nil
            return .jump(to: target)
        }
        return step
    }

    private mutating func mdat(_ header: MP4BoxHeader, end: Int64?, at offset: Int64, state: inout StreamState) throws(AudioParserError)
        -> ParseStep
    {
        let contents = offset + Int64(header.headerSize)
        if audio != nil, cursor != nil {
            phase = .samples
            return .skip(Int64(header.headerSize))
        }
        if fragment.hasSamples {
            phase = .fragmentSamples(end: end)
            return .skip(Int64(header.headerSize))
        }
        guard !sawMoov else { return try skip(to: end, from: offset, state: &state) }
        guard let end else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "MP4 whose audio (mdat) runs to the end of the file before its index (moov)",
                offset: offset)
        }
        if firstMdat == nil { firstMdat = offset }
        prefersJump = end - contents > 0
        return .skip(end - offset)
    }

    /// Reads a box held whole, which ends at `end`.
    private mutating func read(
        _ type: FourCC, parent: FourCC?, _ body: UnsafeRawBufferPointer, end: Int64, state: inout StreamState
    ) {
        switch type {
        case .mvhd: movieTimescale = MP4LeafBoxes.timescale(body) ?? movieTimescale
        case .tkhd: track?.trackID = MP4LeafBoxes.trackID(body) ?? 0
        case .mdhd: track?.timescale = MP4LeafBoxes.timescale(body) ?? 0
        case .hdlr where parent == .mdia:
            let handler = MP4LeafBoxes.handler(body)
            track?.isCandidate = audio == nil && handler == .soun
            track?.isText = handler == .text || handler == .sbtl
        case .chap: track?.chapterTrackIDs = (0..<min(body.count / 4, 8)).map { Int(body.bigEndian(at: 4 * $0, count: 4)) }
        case .stsd where track?.isCandidate == true: track?.entry = MP4LeafBoxes.sampleEntry(body)
        case .elst: track?.edit = MP4LeafBoxes.edit(body)
        case .chpl:
            let chapters = MP4LeafBoxes.chapters(body)
            if !chapters.isEmpty { state.set(\.chapters, chapters) }
        case .trex: fragment.readDefaults(body, audioTrackID: audio?.track.trackID)
        case .tfhd: fragment.readHeader(body, audioTrackID: audio?.track.trackID)
        case .tfdt:
            fragment.readDecodeTime(body)
            if fragment.decodeTime != nil, !hasDecodeTimes {
                hasDecodeTimes = true
                state.set(\.isSeekableByTime, true)
            }
        case .sidx: readSegmentIndex(body, end: end, state: &state)
        default:
            guard parent == .ilst else { return }
            readItem(type, body, state: &state)
        }
    }

    /// An `ilst` item: a tag, or iTunes' gapless figures.
    private mutating func readItem(_ type: FourCC, _ body: UnsafeRawBufferPointer, state: inout StreamState) {
        if type == .freeform {
            guard MP4LeafBoxes.freeformName(body) == "iTunSMPB", let text = MP4LeafBoxes.itemText(body) else { return }
            smpb = MP4LeafBoxes.iTunSMPB(text)
            return
        }
        let fields: [FourCC: AudioTags.Field] = [.title: .title, .artist: .artist, .album: .album]
        guard let field = fields[type], let text = MP4LeafBoxes.itemText(body) else { return }
        let before = state.properties.tags
        state.properties.tags.noteKind(.mp4)
        state.properties.tags.set(field, text, from: .mp4)
        if state.properties.tags != before { state.changed = true }
    }
}

/// Cutting samples out of the file.
extension MP4Parser {
    /// The next sample of the sample table: skipped to, jumped back to when it lies before
    /// `offset` (chunks out of file order), then cut out whole.
    package mutating func sample(_ window: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState) throws(AudioParserError)
        -> ParseStep
    {
        guard let audio, let cursor else {
            phase = .done
            return .skip(Int64(window.count))
        }
        if let read = chapterReads.first, read.offset < cursor.offset { return readChapter(window, offset: offset, state: &state) }
        if cursor.offset > offset { return .skip(cursor.offset - offset) }
        if cursor.offset < offset {
            // Chunks out of file order: each costs a new connection, so only a few.
            backwardJumps += 1
            guard backwardJumps <= Self.maximumBackwardJumps else {
                throw AudioParserError(code: .unsupportedFormat, message: "MP4 whose audio chunks are out of file order", offset: offset)
            }
            return .jump(to: cursor.offset)
        }
        let size = audio.table.size(of: cursor.index)
        guard size <= Self.maximumSampleSize else { throw mp4Malformed("a sample of \(size) bytes", offset) }
        guard window.count >= size else { return .need(size) }
        self.cursor = audio.table.advance(cursor)
        if self.cursor == nil { phase = .done }
        return .packet(size: size, frames: audio.config.framesPerPacket)
    }
}

/// Counting samples from the index alone.
extension MP4Parser {
    /// The samples the sample table places from stream `offset` on, counted without their bytes
    /// (the index delimits MP4's packets: their bytes tell nothing more): while they follow in
    /// file order, each ends within the source (`sourceEnd`) and no chapter title is to be read
    /// before it. The cursor is left after them, and `used` reaches the last one's end, so a
    /// parse goes on from there as it would have. `nil` outside the samples of a sample table.
    package mutating func countRestOfAudio(from offset: Int64, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        guard case .samples = phase, let audio, var cursor, let sourceEnd else { return nil }
        let stop = min(sourceEnd, chapterReads.first?.offset ?? .max)
        var count = PCMDataChunk.Count(packets: 0, bytes: 0, frames: 0, used: 0)
        var end = offset
        while cursor.offset >= end {
            let size = audio.table.size(of: cursor.index)
            guard size <= Self.maximumSampleSize, cursor.offset + Int64(size) <= stop else { break }
            count.packets += 1
            count.bytes += Int64(size)
            count.frames += Int64(audio.config.framesPerPacket)
            end = cursor.offset + Int64(size)
            guard let next = audio.table.advance(cursor) else {
                self.cursor = nil
                phase = .done
                count.used = end - offset
                return count
            }
            cursor = next
        }
        self.cursor = cursor
        count.used = end - offset
        return count
    }
}
