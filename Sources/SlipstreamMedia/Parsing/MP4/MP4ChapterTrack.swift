/// A QuickTime chapter track: a text track that the audio track names in its `tref/chap`, whose
/// samples are the chapters' titles and whose sample times are their starts. Bounded: at most
/// `maximumChapters` samples, each read only if at most `maximumSampleSize` bytes.
package struct MP4ChapterTrack: Hashable, Sendable {
    /// One chapter's title sample: where it lies, and when the chapter starts (seconds).
    package struct Sample: Hashable, Sendable {
        package var offset: Int64
        package var size: Int
        package var startTime: Double
    }

    /// A run of `stts`: `count` samples of `delta` ticks each.
    package struct TimeRun: Hashable, Sendable {
        package var count: Int64
        package var delta: Int64
    }

    /// The most chapters a track may hold (more: it is not taken for one).
    package static let maximumChapters = 1024
    /// The largest title sample read (bytes); a larger one is passed over.
    package static let maximumSampleSize = 4096

    package var trackID: Int
    /// The title samples, in file order.
    package var samples: [Sample] = []

    /// The chapter track `trackID` from its sample tables, its timescale (ticks per second)
    /// and its `stts` runs; `nil` when they disagree, are empty or hold too many samples.
    package init?(trackID: Int, table: MP4SampleTable, timescale: Int, runs: [TimeRun]) {
        guard table.sampleCount > 0, table.sampleCount <= Self.maximumChapters, table.isConsistent, timescale > 0,
            var cursor = table.firstSample()
        else { return nil }
        self.trackID = trackID
        var (time, run, usedOfRun): (Int64, Int, Int64) = (0, 0, 0)
        while true {
            samples.append(Sample(offset: cursor.offset, size: table.size(of: cursor.index), startTime: Double(time) / Double(timescale)))
            if run < runs.count {
                time = min(time + runs[run].delta, MP4SegmentIndex.maximumTime)
                usedOfRun += 1
                if usedOfRun >= runs[run].count { (run, usedOfRun) = (run + 1, 0) }
            }
            guard let next = table.advance(cursor) else { break }
            cursor = next
        }
        samples.sort { $0.offset < $1.offset }
    }

    /// The title in a text sample: a 16-bit big-endian length, then the text (UTF-8, or UTF-16
    /// after a byte-order mark); `nil` when the length overruns the sample.
    package static func title(_ sample: UnsafeRawBufferPointer) -> String? {
        guard sample.count >= 2 else { return nil }
        let length = Int(sample.bigEndian(at: 0, count: 2))
        guard 2 + length <= sample.count else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: sample[2..<2 + length])
        guard text.count >= 2, text[0] == 0xFE, text[1] == 0xFF else { return String(decoding: text, as: UTF8.self) }
        let units = stride(from: 2, to: text.count - 1, by: 2).map { UInt16(text[$0]) << 8 | UInt16(text[$0 + 1]) }
        return String(decoding: units, as: UTF16.self)
    }
}

/// Reading a chapter track's titles out of `mdat`, where they lie among the audio's samples.
extension MP4Parser {
    /// A chapter title lies before the next audio sample, still to be read.
    package var awaitsChapters: Bool {
        guard let read = chapterReads.first, let cursor else { return false }
        return read.offset < cursor.offset
    }

    /// The next title sample, before the next audio sample: skipped to, then read (one that
    /// lies before the bytes already passed, or is too large, is passed over). The chapters are
    /// told as each is read, in time order.
    package mutating func readChapter(_ window: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState) -> ParseStep {
        let read = chapterReads[0]
        if read.offset > offset { return .skip(read.offset - offset) }
        guard read.offset == offset, read.size <= MP4ChapterTrack.maximumSampleSize else {
            chapterReads.removeFirst()
            return .skip(0)
        }
        guard window.count >= read.size else { return .need(read.size) }
        chapterReads.removeFirst()
        if let title = MP4ChapterTrack.title(UnsafeRawBufferPointer(rebasing: window[..<read.size])) {
            chapters.append(AudioChapter(startTime: read.startTime, title: title))
            chapters.sort { $0.startTime < $1.startTime }
            state.set(\.chapters, chapters)
        }
        return .skip(0)
    }
}
