/// The samples of the audio track in one movie fragment (`moof`): the defaults from `trex` and
/// `tfhd`, and each run (`trun`) with where its data starts. Bounded: at most
/// `maximumSampleCount` samples a fragment.
package struct MP4Fragment: Hashable, Sendable {
    /// Per-track defaults (`trex`, `tfhd`).
    package struct Defaults: Hashable, Sendable {
        package var sampleSize: Int?
    }

    /// The most samples one fragment may hold.
    package static let maximumSampleCount = 1 << 20

    package var moofOffset: Int64 = 0
    package var defaults = Defaults()
    /// The audio track's ID, once the movie is read.
    package var audioTrackID: Int?
    /// The current `traf` is the audio track's.
    package private(set) var isActive = false
    /// The current `traf`'s base data offset and default size.
    private var baseOffset: Int64 = 0
    private var trackDefaultSize: Int?
    /// Sample sizes, in order, and where each run starts (its first sample's index and offset).
    private var sizes = PackedIntegers()
    private var runStarts: [(sample: Int, offset: Int64)] = []
    /// Where the current run's next sample starts.
    private var runEnd: Int64 = 0
    /// The next sample to cut out, and its offset.
    package private(set) var next = 0
    package private(set) var nextOffset: Int64 = 0
    /// The decode time (`tfdt`, media ticks) of the audio's `traf`, and the index of its first
    /// sample, when stated.
    package private(set) var decodeTime: (ticks: Int64, sample: Int)?

    /// Forgets the samples of the last fragment, keeping the defaults and the audio track: a
    /// new `moof` starts at `moofOffset`.
    package mutating func reset(moofOffset: Int64) {
        var fresh = MP4Fragment()
        fresh.moofOffset = moofOffset
        fresh.defaults = defaults
        fresh.audioTrackID = audioTrackID
        self = fresh
    }

    package static func == (a: MP4Fragment, b: MP4Fragment) -> Bool {
        a.moofOffset == b.moofOffset && a.sizes == b.sizes && a.next == b.next && a.isActive == b.isActive
            && a.decodeTime?.ticks == b.decodeTime?.ticks && a.decodeTime?.sample == b.decodeTime?.sample
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(moofOffset)
        hasher.combine(next)
    }

    /// Samples listed so far.
    package var sampleCount: Int { sizes.count }
    /// Some sample is still to be cut out.
    package var hasSamples: Bool { next < sizes.count }

    /// A `trex` box: the audio track's default sample size.
    package mutating func readDefaults(_ body: UnsafeRawBufferPointer, audioTrackID: Int?) {
        guard body.count >= 24, let audioTrackID, Int(body.bigEndian(at: 4, count: 4)) == audioTrackID else { return }
        let size = Int(body.bigEndian(at: 16, count: 4))
        defaults.sampleSize = size > 0 ? size : nil
    }

    /// A `traf` starts.
    package mutating func beginTrackFragment() {
        isActive = false
        baseOffset = moofOffset
        trackDefaultSize = defaults.sampleSize
    }

    /// A `traf` ends.
    package mutating func endTrackFragment() {
        isActive = false
    }

    /// A `tfhd` box: whether this track fragment is the audio track's, its base offset and
    /// default sample size.
    package mutating func readHeader(_ body: UnsafeRawBufferPointer, audioTrackID: Int?) {
        guard body.count >= 8, let audioTrackID else { return }
        let flags = Int(body.bigEndian(at: 1, count: 3))
        isActive = Int(body.bigEndian(at: 4, count: 4)) == audioTrackID
        var at = 8
        if flags & 0x1 != 0, body.count >= at + 8 {
            baseOffset = Int64(min(body.bigEndian(at: at, count: 8), UInt64(1) << 60))
            at += 8
        }
        if flags & 0x2 != 0 { at += 4 }
        if flags & 0x8 != 0 { at += 4 }
        if flags & 0x10 != 0, body.count >= at + 4 {
            let size = Int(body.bigEndian(at: at, count: 4))
            trackDefaultSize = size > 0 ? size : trackDefaultSize
        }
        runEnd = baseOffset
    }

    /// A `tfdt` box: the decode time of the audio's track fragment's first sample.
    package mutating func readDecodeTime(_ body: UnsafeRawBufferPointer) {
        guard isActive, let (version, _) = MP4LeafBoxes.versionAndFlags(body) else { return }
        let fieldSize = version == 1 ? 8 : 4
        guard body.count >= 4 + fieldSize else { return }
        let ticks = min(body.bigEndian(at: 4, count: fieldSize), UInt64(MP4SegmentIndex.maximumTime))
        decodeTime = (Int64(ticks), sizes.count)
    }

    /// The decode time (`tfdt`, media ticks) of the track fragment the next sample is in, and
    /// how many samples after its first the next one is; `nil` when the fragment states none.
    package var nextDecodeTime: (ticks: Int64, samplesAfter: Int)? {
        decodeTime.map { ($0.ticks, next - $0.sample) }
    }

    /// A `trun` starts: its data starts `dataOffset` bytes after the base offset, or where the
    /// previous run's ended.
    package mutating func beginRun(dataOffset: Int64?) {
        if let dataOffset { runEnd = baseOffset + dataOffset }
        if runStarts.isEmpty || sizes.count == next { nextOffset = runEnd }
        runStarts.append((sizes.count, runEnd))
    }

    /// The next sample of the current run: `size` bytes, or the default size when `nil`.
    package mutating func appendSample(size: Int?) {
        let size = size ?? trackDefaultSize ?? 0
        sizes.append(Int64(size))
        runEnd += Int64(size)
    }

    /// The next sample's size.
    package var nextSize: Int { Int(sizes[next]) }

    /// Moves past the next sample.
    package mutating func advance() {
        nextOffset += Int64(sizes[next])
        next += 1
        if let start = runStarts.first(where: { $0.sample == next }) { nextOffset = start.offset }
    }
}
