/// Fragmented MP4: cutting a fragment's samples out of its `mdat`, placed by its decode time;
/// the segment index's seek points and length; the next `moof` after a jump.
extension MP4Parser {
    /// Bytes that identify a movie fragment's start: its size, `moof`, then `mfhd` (16 bytes).
    package static let fragmentSignatureSize = 16

    /// The next sample of the current fragment, inside its `mdat` (ending at `end`); at the end
    /// of either, the boxes go on. Each packet is placed by its fragment's decode time, if stated.
    package mutating func fragmentSample(
        _ window: UnsafeRawBufferPointer, offset: Int64, end: Int64?, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard let audio, fragment.hasSamples, end.map({ fragment.nextOffset + Int64(fragment.nextSize) <= $0 }) ?? true else {
            guard let end else {
                phase = .done
                return .skip(Int64(window.count))
            }
            phase = .boxes
            fragment.reset(moofOffset: 0)
            return .skip(max(end - offset, 0))
        }
        let size = fragment.nextSize
        if fragment.nextOffset < offset {
            // A sample that lies before the bytes already passed: lost.
            fragment.advance()
            return .skip(0)
        }
        if fragment.nextOffset > offset { return .skip(fragment.nextOffset - offset) }
        guard size <= Self.maximumSampleSize else { throw mp4Malformed("a sample of \(size) bytes", offset) }
        guard window.count >= size else { return .need(size) }
        if let (ticks, after) = fragment.nextDecodeTime {
            state.nextFrame = frames(ticks: ticks, timescale: audio.track.timescale) + Int64(after * audio.config.framesPerPacket)
        }
        fragment.advance()
        return .packet(size: size, frames: audio.config.framesPerPacket)
    }

    /// After a jump into a fragmented file: skips to the next `moof` box (its size, `moof`, then
    /// an `mfhd` of 16 bytes), where the boxes go on. Each place is looked at once, whatever the
    /// split: the last bytes that could start one wait for the next.
    package mutating func findFragment(_ window: UnsafeRawBufferPointer, isFinal: Bool) -> ParseStep {
        let size = Self.fragmentSignatureSize
        guard window.count >= size else { return isFinal ? .skip(Int64(window.count)) : .need(size) }
        var i = 0
        while i + size <= window.count {
            if FourCC(window, at: i + 4) == .moof, FourCC(window, at: i + 12) == .mfhd, window.bigEndian(at: i + 8, count: 4) == 16,
                window.bigEndian(at: i, count: 4) >= 24
            {
                phase = .boxes
                return .skip(Int64(i))
            }
            i += 1
        }
        return .skip(Int64(i))
    }

    /// A segment index (`sidx`, ending at `end`) of the audio track: its subsegments' starts
    /// become exact seek points, and its end the stream's length when it is the whole file's
    /// (from time 0, and before the first fragment listing more than one subsegment, as
    /// ffmpeg's `global_sidx` and DASH's on-demand files have it, or ending where the file does),
    /// not one of an index per fragment.
    package mutating func readSegmentIndex(_ body: UnsafeRawBufferPointer, end: Int64, state: inout StreamState) {
        guard let audio, let index = MP4SegmentIndex(body, boxEnd: end), index.referenceID == audio.track.trackID else { return }
        let table = state.seekTable
        guard table.tableFrames.isEmpty || table.tableMethod == .seekPoints else { return }
        var (pointFrames, pointOffsets) = (table.tableFrames, table.tableOffsets)
        for (time, offset) in zip(index.times, index.offsets) where pointFrames.count < AudioSeekTable.maximumSeekPoints {
            let frame = frames(ticks: time, timescale: index.timescale)
            guard frame > pointFrames.last ?? -1, offset > pointOffsets.last ?? -1 else { continue }
            pointFrames.append(frame)
            pointOffsets.append(offset)
        }
        state.seekTable.tableMethod = .seekPoints
        (state.seekTable.tableFrames, state.seekTable.tableOffsets) = (pointFrames, pointOffsets)
        state.set(\.isSeekableByTime, true)
        let isWhole = (firstFragmentOffset == nil && index.times.count > 1) || index.endOffset == table.streamSize
        if index.times.first == 0, isWhole {
            state.headerFrameCount = frames(ticks: index.endTime, timescale: index.timescale)
            state.changed = true
        }
    }

    /// `ticks` of a timescale (the audio's sample rate when 0) as frames of the decoded audio.
    package func frames(ticks: Int64, timescale: Int) -> Int64 {
        guard let audio else { return 0 }
        let rate = Int64(audio.config.outputSampleRate)
        let scale = Int64(timescale > 0 ? timescale : audio.config.outputSampleRate)
        // Both are bounded (ticks by 2^40, rates by 2^20): the product fits.
        return min(ticks, MP4SegmentIndex.maximumTime) * rate / max(scale, 1)
    }
}
