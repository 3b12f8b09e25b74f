/// Where each sample (AAC access unit) of an MP4 track lies, from its `stsc`, `stsz` and
/// `stco`/`co64` boxes, held compactly: the sizes and chunk offsets in `PackedIntegers` (2 to 4
/// bytes a sample: a sample's offset is worked out from its chunk's offset and the sizes before
/// it in the chunk, never stored), the sample-to-chunk runs as they are (a few). Time needs no
/// table: every AAC access unit decodes to the same number of frames.
package struct MP4SampleTable: Hashable, Sendable {
    /// A run of chunks with the same number of samples (`stsc`): from `firstChunk` (0-based) on.
    package struct ChunkRun: Hashable, Sendable {
        package var firstChunk: Int
        package var samplesPerChunk: Int
    }

    /// The most samples a track may have (about 53 hours of 44.1 kHz AAC; 16 MiB of sizes).
    package static let maximumSampleCount = 1 << 23
    /// The most chunks a track may have.
    package static let maximumChunkCount = 1 << 23
    /// The most sample-to-chunk runs.
    package static let maximumRunCount = 1 << 20

    /// Sizes of the samples, unless they all have `uniformSize`.
    package var sizes = PackedIntegers()
    /// The size of every sample when `stsz` gives one for all (then `sizes` is empty).
    package var uniformSize: Int?
    /// Samples in the track.
    package var sampleCount = 0
    package var chunkOffsets = PackedIntegers()
    package var runs: [ChunkRun] = []

    /// The size of sample `index`.
    package func size(of index: Int) -> Int {
        uniformSize ?? Int(sizes[index])
    }

    /// Whether the tables agree with each other: sizes for every sample, runs starting at chunk
    /// 0 in order, and chunks enough for every sample.
    package var isConsistent: Bool {
        guard sampleCount > 0, uniformSize != nil || sizes.count == sampleCount, let first = runs.first, first.firstChunk == 0
        else { return false }
        var samples = 0
        for (i, run) in runs.enumerated() {
            guard run.samplesPerChunk > 0 else { return false }
            let end = i + 1 < runs.count ? runs[i + 1].firstChunk : chunkOffsets.count
            guard end > run.firstChunk || (i + 1 == runs.count && end == run.firstChunk) else { return false }
            samples += (end - run.firstChunk) * run.samplesPerChunk
            if samples >= sampleCount { return true }
        }
        return samples >= sampleCount
    }

    /// The sum of every sample's size.
    package var totalSize: Int64 {
        if let uniformSize { return Int64(uniformSize) * Int64(sampleCount) }
        var total: Int64 = 0
        for i in 0..<sizes.count { total += sizes[i] }
        return total
    }

    /// The first sample, or `nil` for an empty table.
    package func firstSample() -> MP4SampleCursor? {
        sample(at: 0)
    }

    /// The cursor at sample `index`, `nil` past the last.
    package func sample(at index: Int) -> MP4SampleCursor? {
        guard index >= 0, index < sampleCount, isConsistent else { return nil }
        var runIndex = 0
        var firstSampleOfRun = 0
        while runIndex + 1 < runs.count {
            let chunks = runs[runIndex + 1].firstChunk - runs[runIndex].firstChunk
            let samples = chunks * runs[runIndex].samplesPerChunk
            if index < firstSampleOfRun + samples { break }
            firstSampleOfRun += samples
            runIndex += 1
        }
        let run = runs[runIndex]
        let chunk = run.firstChunk + (index - firstSampleOfRun) / run.samplesPerChunk
        let inChunk = (index - firstSampleOfRun) % run.samplesPerChunk
        guard chunk < chunkOffsets.count else { return nil }
        var offset = chunkOffsets[chunk]
        for i in (index - inChunk)..<index { offset += Int64(size(of: i)) }
        return MP4SampleCursor(index: index, chunk: chunk, indexInChunk: inChunk, runIndex: runIndex, offset: offset)
    }

    /// The first sample starting at or after `offset` (in file order of chunks), `nil` when none.
    package func sample(atOrAfter offset: Int64) -> MP4SampleCursor? {
        guard var cursor = firstSample() else { return nil }
        // Jump chunk by chunk to the last chunk starting at or before `offset`, then sample by sample.
        var best: MP4SampleCursor?
        var first = 0
        for (runIndex, run) in runs.enumerated() {
            let end = runIndex + 1 < runs.count ? runs[runIndex + 1].firstChunk : chunkOffsets.count
            for chunk in run.firstChunk..<min(end, chunkOffsets.count) {
                guard first < sampleCount else { break }
                let start = chunkOffsets[chunk]
                if start <= offset, best.map({ start >= $0.offset }) ?? true {
                    best = MP4SampleCursor(index: first, chunk: chunk, indexInChunk: 0, runIndex: runIndex, offset: start)
                }
                first += run.samplesPerChunk
            }
        }
        if let best { cursor = best }
        while cursor.offset < offset {
            guard let next = advance(cursor) else { return nil }
            cursor = next
        }
        return cursor
    }

    /// The sample after `cursor`, `nil` after the last.
    package func advance(_ cursor: MP4SampleCursor) -> MP4SampleCursor? {
        var next = cursor
        next.index += 1
        guard next.index < sampleCount else { return nil }
        next.indexInChunk += 1
        next.offset += Int64(size(of: cursor.index))
        if next.indexInChunk == runs[next.runIndex].samplesPerChunk {
            next.chunk += 1
            next.indexInChunk = 0
            guard next.chunk < chunkOffsets.count else { return nil }
            next.offset = chunkOffsets[next.chunk]
            if next.runIndex + 1 < runs.count, runs[next.runIndex + 1].firstChunk == next.chunk { next.runIndex += 1 }
        }
        return next
    }

    /// Bytes the tables take.
    package var byteCount: Int { sizes.byteCount + chunkOffsets.byteCount + runs.count * 16 }
}

/// A place in an `MP4SampleTable`: a sample, its chunk and its byte offset.
package struct MP4SampleCursor: Hashable, Sendable {
    /// The sample's index in the track (0-based).
    package var index: Int
    /// Its chunk (0-based) and its place in the chunk.
    package var chunk: Int
    package var indexInChunk: Int
    /// The sample-to-chunk run of the chunk.
    package var runIndex: Int
    /// The sample's first byte in the file.
    package var offset: Int64
}
