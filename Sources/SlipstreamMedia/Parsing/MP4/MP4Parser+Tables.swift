/// The sample tables, streamed a few KiB at a time, and what closing a track and the movie
/// sets up.
extension MP4Parser {
    /// Reads a table box's fixed fields and starts streaming its entries.
    package mutating func beginTable(
        _ type: FourCC, _ window: UnsafeRawBufferPointer, header: MP4BoxHeader, end: Int64, at offset: Int64, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        let h = header.headerSize
        // Full-box header and entry count; stsz has its uniform size first; trun its options.
        let fixed = type == .stsz ? 12 : 8
        guard window.count >= h + fixed else { return .need(h + fixed) }
        let flags = Int(window.bigEndian(at: h + 1, count: 3))
        var count = Int(window.bigEndian(at: h + fixed - 4, count: 4))
        var headerBytes = h + fixed
        let table: Table
        var entrySize = 4
        switch type {
        case .stts: (table, entrySize) = (.stts, 8)
        case .stsc: (table, entrySize) = (.stsc, 12)
        case .stco: table = .stco
        case .co64: (table, entrySize) = (.co64, 8)
        case .stsz:
            table = .stsz
            let uniform = Int(window.bigEndian(at: h + 4, count: 4))
            guard count <= MP4SampleTable.maximumSampleCount else {
                throw mp4Malformed("\(count) samples in one track (at most \(MP4SampleTable.maximumSampleCount))", offset)
            }
            track?.table.sampleCount = count
            if uniform != 0 {
                track?.table.uniformSize = uniform
                count = 0
            } else {
                track?.table.sizes.reserve(count)
            }
        default:
            // trun: an optional data offset and first-sample flags, then its per-sample fields.
            let optional = (flags & 1 != 0 ? 4 : 0) + (flags & 4 != 0 ? 4 : 0)
            guard window.count >= h + fixed + optional else { return .need(h + fixed + optional) }
            let dataOffset = flags & 1 != 0 ? Int64(Int32(bitPattern: UInt32(window.bigEndian(at: h + fixed, count: 4)))) : nil
            headerBytes += optional
            table = .trun(flags: flags)
            entrySize = 4 * (flags >> 8 & 0xF).nonzeroBitCount
            guard fragment.sampleCount + count <= MP4Fragment.maximumSampleCount else {
                throw mp4Malformed("\(count) samples in one fragment", offset)
            }
            fragment.beginRun(dataOffset: dataOffset)
        }
        let limits: [Table: Int] = [
            .stsc: MP4SampleTable.maximumRunCount, .stco: MP4SampleTable.maximumChunkCount,
            .co64: MP4SampleTable.maximumChunkCount, .stts: MP4SampleTable.maximumSampleCount,
        ]
        guard count >= 0, count <= limits[table] ?? Int.max, Int64(headerBytes) + Int64(count) * Int64(entrySize) <= end - offset else {
            throw mp4Malformed("table '\(type)' of \(count) entries does not fit its box", offset)
        }
        if case .trun = table, entrySize == 0 {
            // No per-sample fields: every sample has the default size.
            for _ in 0..<count { fragment.appendSample(size: nil) }
            count = 0
        }
        phase = .table(table, remaining: count, entrySize: entrySize, end: end)
        return .skip(Int64(headerBytes))
    }

    /// Reads the next entries of a table.
    package mutating func tableStep(
        _ window: UnsafeRawBufferPointer, offset: Int64, _ table: Table, remaining: Int, entrySize: Int, end: Int64,
        state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard remaining > 0 else {
            phase = .boxes
            return try moved(to: end, .skip(end - offset), state: &state)
        }
        let count = min(remaining, max(1, Self.tableChunk / entrySize))
        let bytes = count * entrySize
        guard window.count >= bytes else { return .need(bytes) }
        for i in 0..<count {
            let at = i * entrySize
            let first = Int64(window.bigEndian(at: at, count: table == .co64 ? 8 : 4))
            switch table {
            case .stts:
                let delta = Int64(window.bigEndian(at: at + 4, count: 4))
                // Both are 32-bit: their product may pass Int64 (a hostile table); each run and
                // the sum stay at most 2^50 ticks (more than any real track).
                let ticks = first.multipliedReportingOverflow(by: delta)
                let run = ticks.overflow ? Int64(1) << 50 : min(ticks.partialValue, Int64(1) << 50)
                if let total = track?.durationTicks { track?.durationTicks = min(total + run, Int64(1) << 50) }
                if track?.isText == true, track?.timeRuns.count ?? 0 < MP4ChapterTrack.maximumChapters {
                    track?.timeRuns.append(MP4ChapterTrack.TimeRun(count: first, delta: delta))
                }
            case .stsc:
                let run = MP4SampleTable.ChunkRun(firstChunk: Int(first) - 1, samplesPerChunk: Int(window.bigEndian(at: at + 4, count: 4)))
                track?.table.runs.append(run)
            case .stsz: track?.table.sizes.append(first)
            case .stco, .co64: track?.table.chunkOffsets.append(first)
            case .trun(let flags):
                // Fields in order: duration, size, flags, composition offset; the size is wanted.
                let size = flags & 0x200 != 0 ? Int(window.bigEndian(at: at + (flags & 0x100 != 0 ? 4 : 0), count: 4)) : nil
                fragment.appendSample(size: size)
            }
        }
        phase = .table(table, remaining: remaining - count, entrySize: entrySize, end: end)
        guard remaining == count else { return .skip(Int64(bytes)) }
        phase = .boxes
        return try moved(to: end, .skip(end - offset), state: &state)
    }

    /// A box that was being walked ends at `end`.
    package mutating func close(_ type: FourCC, at end: Int64, state: inout StreamState) throws(AudioParserError) {
        switch type {
        case .trak:
            if let track, track.isText, textTracks.count < 4,
                let chapters = MP4ChapterTrack(trackID: track.trackID, table: track.table, timescale: track.timescale, runs: track.timeRuns)
            {
                textTracks.append(chapters)
            }
            guard let track, track.isCandidate else {
                self.track = nil
                break
            }
            self.track = nil
            switch track.entry {
            case .aac(let bytes)?:
                guard let config = AudioSpecificConfig(bytes) else {
                    otherCodec = "AAC whose AudioSpecificConfig is not one libfaad2 decodes"
                    return
                }
                audio = AudioTrack(config: config, cookie: bytes, track: track)
            case .other(let name)?: otherCodec = name
            case nil: break
            }
        case .moov:
            sawMoov = true
            guard let audio else {
                let what = otherCodec.map { "MP4 with \($0) audio cannot be played (AAC can)" } ?? "MP4 with no audio track"
                throw AudioParserError(code: .unsupportedFormat, message: what, offset: end)
            }
            fragment.audioTrackID = audio.track.trackID
            try setUp(audio, at: end, state: &state)
            if state.properties.chapters.isEmpty, let track = textTracks.first(where: { audio.track.chapterTrackIDs.contains($0.trackID) })
            {
                // No Nero chapters: the chapter track's titles are read as the audio passes.
                chapterReads = track.samples
            }
            textTracks = []
            if let first = firstMdat {
                firstMdat = nil
                jumpTarget = first
            }
        case .traf:
            fragment.endTrackFragment()
        default:
            break
        }
    }

    /// The format, totals, gapless figures and seek table of the track that plays.
    private mutating func setUp(_ audio: AudioTrack, at offset: Int64, state: inout StreamState) throws(AudioParserError) {
        let (config, track) = (audio.config, audio.track)
        let format = AudioFormat(
            codec: .aacRaw, codecDescription: "\(config.description) (MP4)", sampleRate: config.outputSampleRate,
            channels: config.outputChannels, framesPerPacket: config.framesPerPacket, magicCookie: audio.cookie)
        state.setFormat(format)
        let table = track.table
        guard table.sampleCount > 0 else { return }
        guard table.isConsistent, let first = table.firstSample() else {
            throw mp4Malformed("the sample tables (stsc, stsz, stco) of the audio track disagree", offset)
        }
        cursor = first
        let rate = Int64(config.outputSampleRate)
        let totalFrames = Int64(table.sampleCount) * Int64(config.framesPerPacket)
        let mediaScale = Int64(track.timescale > 0 ? track.timescale : config.outputSampleRate)
        // Ticks of a hostile file may pass Int64 once scaled: they are then past any real track.
        let toFrames = { (ticks: Int64, scale: Int64) -> Int64 in
            guard scale > 0 else { return 0 }
            let scaled = ticks.multipliedReportingOverflow(by: rate)
            return scaled.overflow ? .max / 4 : scaled.partialValue / scale
        }
        let mediaEnd = track.durationTicks > 0 ? min(toFrames(track.durationTicks, mediaScale), totalFrames) : totalFrames
        var delay: Int64 = 0
        var end = mediaEnd
        if let edit = track.edit {
            delay = min(toFrames(edit.mediaTime, mediaScale), totalFrames)
            let (editEnd, past) = delay.addingReportingOverflow(toFrames(edit.duration, Int64(movieTimescale)))
            // The movie's timescale is coarse (often ms): an edit ending within one of its ticks
            // of the media's end ends there.
            let tick = rate / Int64(movieTimescale) + 1
            end = edit.duration == 0 || past || abs(editEnd - mediaEnd) <= tick ? mediaEnd : min(editEnd, mediaEnd)
        } else if let smpb {
            delay = Int64(smpb.delay)
            end = min(delay + smpb.frames, totalFrames)
        }
        end = max(end, delay)
        state.set(\.encoderDelay, Int(delay))
        state.set(\.encoderPadding, Int(totalFrames - end))
        state.set(\.statedPacketCount, Int64(table.sampleCount))
        state.headerPacketCount = Int64(table.sampleCount)
        state.headerFrameCount = totalFrames
        let bytes = table.totalSize
        state.headerByteCount = bytes
        if end > delay { state.headerBitRate = Double(bytes) * 8 * Double(rate) / Double(totalFrames) }
        state.set(\.dataOffset, first.offset)
        state.seekTable.dataOffset = first.offset
        state.seekTable.sampleTable = table
        state.set(\.isSeekableByTime, true)
        state.changed = true
    }
}
