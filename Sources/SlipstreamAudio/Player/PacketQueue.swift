/// The player's packet queue: everything the network side hands the playback side, in order,
/// and the few readings the playback side hands back. The one object the two share (behind the
/// lock of `SharedPacketQueue`); a plain value here, tested without threads.
///
/// In order, in band: the stream's formats (`FormatRecord`; each packet names its own, so the
/// playback side rebuilds its decoder where the format changes, and a seek back across a change
/// finds the right one), the packets (in a `PacketRing`), a seek's flush (`Flush`), the end.
/// A radio title rides on the packet it starts with (`titleID`), so that it is announced when
/// that packet is heard.
///
/// Watermarks answer the two backpressure questions: the producer must pause when a chunk of
/// bytes would take the unplayed packets past the limit (the high watermark), and may resume
/// once the playback side has taken them below `resumeFraction` of it (the low watermark). A
/// third, armed by the state machine, says when enough audio is queued to start: it fires once
/// when the unplayed audio reaches its seconds, or the stream ended with audio queued.
///
/// Readings for anyone who asks (`AudioStreamer.progress`): the playback position, the bytes
/// received and when the last one came.
struct PacketQueue {
    /// A format the stream is in from some packet on.
    struct FormatRecord: Equatable {
        /// The coding of the packets in this format.
        var format: AudioFormat
        /// The stream's properties when the format was found (gapless figures for the first).
        var properties: AudioStreamProperties
        /// The raw stream frame of the format's first packet (0 for the stream's first format).
        var firstFrame: Int64
    }

    /// A seek the playback side is to carry out before its next packet.
    struct Flush: Equatable {
        /// Counts seeks; readings of an older one are stale.
        var generation: Int
        /// Decoded output before this raw stream frame is dropped.
        var seekFrame: Int64
        /// The playback position at the target, in nanoseconds.
        var position: Int64
    }

    /// What the playback side is to do next.
    enum Step: Equatable {
        /// Carry out a seek: reset the decoder, flush the output.
        case flush(Flush)
        /// Make a decoder for this format before the next packet (the first format, or a change).
        case format(index: Int, FormatRecord)
        /// Decode and play this packet (its bytes were handed over with it).
        case packet(PacketRing.Entry)
        /// Nothing to play: the output is paused (or nothing is known yet).
        case idle
        /// Playing, and no packet is queued: the queue ran dry.
        case empty
        /// Every packet has been taken and no more will come.
        case ended
    }

    /// How much the queue holds.
    let limit: AudioStreamerConfiguration.BufferLimit
    /// The low watermark as a fraction of the limit.
    let resumeFraction: Double

    /// The packets, made with the first format (the limit in seconds needs its bit rate).
    private(set) var ring: PacketRing?
    /// Every format seen, in order; packets name theirs by index.
    private(set) var formats: [FormatRecord] = []
    /// The producer was told to pause and has not been let go since.
    private(set) var isProducerPaused = false
    /// Counts the pauses: the state machine matches a resume to its pause by it.
    private(set) var pauseEpisode = 0
    /// The producer said no packet follows the last one queued.
    private(set) var isEnded = false
    /// Packets ever stored.
    private(set) var appendedCount = 0
    /// The newest titles packets name (`titleID`s from `firstTitleID` on): a few are kept, for
    /// a queue holds the packets of a few titles at most.
    private var titles: [StreamTitle] = []
    private var firstTitleID = 0
    /// Seeks so far.
    private(set) var flushGeneration = 0
    private var pendingFlush: Flush?
    /// The armed readiness watermark: seconds of audio, and the state machine's id for it.
    private var readyWatermark: (seconds: Double, id: Int)?

    /// Bytes received on every connection (readings).
    private(set) var bytesReceived: Int64 = 0
    /// Monotonic time (ns) the last byte came.
    private(set) var lastByteTime: Int64 = 0
    /// Where playback is, in nanoseconds, as of seek `positionGeneration`.
    private(set) var position: Int64 = 0
    private(set) var positionGeneration = 0
    /// Whether the output is heard as it plays (`AudioOutput.playsInRealTime`); true until an
    /// output is open.
    var isOutputHeard = true

    /// An empty queue holding at most `limit` of unplayed audio.
    init(limit: AudioStreamerConfiguration.BufferLimit, resumeFraction: Double) {
        self.limit = limit
        self.resumeFraction = min(max(resumeFraction, 0), 1)
    }

    /// The index of the newest format, nil before any. (Indexed by hand, here and below: in
    /// unoptimized builds `last` is generic code that allocates, and the playback thread must
    /// not allocate per packet, as its test checks.)
    var newestFormat: Int? { formats.isEmpty ? nil : formats.count - 1 }

    /// The sample rate of the newest format (0 before any).
    var sampleRate: Int { formats.isEmpty ? 0 : formats[formats.count - 1].format.sampleRate }

    /// Seconds of audio queued and not yet played (at the newest format's rate).
    var unplayedSeconds: Double {
        guard let ring, sampleRate > 0 else { return 0 }
        return Double(ring.unplayedFrames) / Double(sampleRate)
    }

    /// The high watermark in bytes; nil when unbounded (or before the first format).
    var highWatermark: Int? { ring?.limit }

    /// The low watermark in bytes.
    var lowWatermark: Int? { highWatermark.map { Int(Double($0) * resumeFraction) } }
}

// MARK: - The producer (network side)

extension PacketQueue {
    /// Whether a chunk of `byteCount` bytes received at `now` may be parsed now.
    enum Admission: Equatable {
        /// Yes: it is counted as received.
        case accept
        /// No: the producer must pause until told to resume. `episode` numbers the pause when
        /// it begins one (nil when the producer was paused already).
        case pause(episode: Int?)
    }

    /// Asks whether `byteCount` more bytes fit under the high watermark (as packets, they take
    /// at most about as much); counts them when they do.
    mutating func admit(_ byteCount: Int, now: Int64) -> Admission {
        if let ring, !ring.canStore(byteCount) {
            guard !isProducerPaused else { return .pause(episode: nil) }
            isProducerPaused = true
            pauseEpisode += 1
            return .pause(episode: pauseEpisode)
        }
        isProducerPaused = false
        bytesReceived += Int64(byteCount)
        lastByteTime = now
        return .accept
    }

    /// A new connection of the producer opened at `now`: it is not paused, and the inactivity
    /// timeout counts from now.
    mutating func producerConnected(now: Int64) {
        isProducerPaused = false
        lastByteTime = now
    }

    /// Adds a format packets may name; returns its index. The first one makes the ring, which
    /// keeps played packets for seeks backwards unless `keepsPlayed` is false (a live stream).
    mutating func addFormat(_ record: FormatRecord, keepsPlayed: Bool = true) -> Int {
        if ring == nil {
            let bytes = Self.byteLimit(limit, format: record.format, bitRate: record.properties.bitRate?.bitsPerSecond)
            ring = PacketRing(limit: bytes, keepsPlayed: keepsPlayed)
        }
        formats.append(record)
        return formats.count - 1
    }

    /// Keeps a title for a packet to name; returns its id.
    mutating func addTitle(_ title: StreamTitle) -> Int {
        if titles.count == Self.keptTitles {
            titles.removeFirst()
            firstTitleID += 1
        }
        titles.append(title)
        return firstTitleID + titles.count - 1
    }

    /// The title with id `id`, while it is kept.
    func title(_ id: Int) -> StreamTitle? {
        titles.indices.contains(id - firstTitleID) ? titles[id - firstTitleID] : nil
    }

    /// How many titles are kept.
    static let keptTitles = 16

    /// Stores a packet in format `formatIndex` (its frames `estimated` after an inexact seek;
    /// title `titleID` starting with it); false when there is no ring yet (no format) or a
    /// bounded ring cannot hold it.
    mutating func append(
        _ bytes: UnsafeRawBufferPointer, packet: AudioPacket, formatIndex: Int, estimated: Bool = false, titleID: Int? = nil
    ) -> Bool {
        guard ring != nil, ring!.append(bytes, packet: packet, formatIndex: formatIndex, estimated: estimated, titleID: titleID)
        else { return false }
        appendedCount += 1
        return true
    }

    /// No packet follows the last one queued (until a seek).
    mutating func markEnded() {
        isEnded = true
    }

    /// Another producer replaces one that ended before its first format (a playlist's entry
    /// after a dead one): the end that one marked is forgotten.
    mutating func producerReplaced() {
        isEnded = false
    }

    /// Drops every packet for a seek that reads from the network again, and posts its flush.
    mutating func clear(seekFrame: Int64, position: Int64) {
        ring?.removeAll()
        isEnded = false
        isProducerPaused = false
        postFlush(seekFrame: seekFrame, position: position)
    }

    /// The queue's byte limit for a configured limit (`nil`: unbounded).
    static func byteLimit(_ limit: AudioStreamerConfiguration.BufferLimit, format: AudioFormat, bitRate: Double?) -> Int? {
        switch limit {
        case .unlimited:
            return nil
        case .bytes(let bytes):
            return min(max(bytes, 16 * 1024), 1 << 30)
        case .seconds(let seconds):
            // PCM: exact; compressed: at the bit rate known so far, else as if 320 kbps.
            let bitsPerSecond = format.pcm.map { Double($0.bytesPerFrame * format.sampleRate * 8) } ?? bitRate ?? 320_000
            return max(Int(min(seconds * bitsPerSecond / 8, Double(maximumSecondsBytes))), 64 * 1024)
        }
    }

    /// The most bytes a limit in seconds comes to: 2 MiB (12 s of CD-quality PCM, 17 s of
    /// FLAC at 1 Mbit/s), so that memory stays flat and small at any bit rate (30 s of 16-bit
    /// stereo PCM took 5 MiB).
    static let maximumSecondsBytes = 2 << 20
}

// MARK: - Readiness

extension PacketQueue {
    /// Arms the readiness watermark: `readyFired()` gives `id` once `seconds` of audio are
    /// queued, the queue is full (a limit below the seconds), or the stream ended with audio
    /// queued. Replaces any armed one.
    mutating func armReady(seconds: Double, id: Int) {
        readyWatermark = (seconds, id)
    }

    /// Disarms the readiness watermark.
    mutating func disarmReady() {
        readyWatermark = nil
    }

    /// The id of the armed watermark if it is reached now (disarming it), else nil.
    mutating func readyFired() -> Int? {
        guard let watermark = readyWatermark, let ring else { return nil }
        let reached = unplayedSeconds >= watermark.seconds || isProducerPaused || (isEnded && ring.unplayedCount > 0)
        guard reached else { return nil }
        readyWatermark = nil
        return watermark.id
    }
}

// MARK: - The consumer (playback side)

extension PacketQueue {
    /// The playback side's next step. `decoderFormat` is the format its decoder is for (nil:
    /// none yet); `running`, whether it is to play. For a packet, `take` is given the entry and
    /// its bytes (valid only during the call) before the packet counts as played.
    /// `resumeEpisode` is the producer's pause when taking a packet brought the unplayed bytes
    /// below the low watermark while the producer was paused (the producer may go on).
    mutating func next(
        decoderFormat: Int?, running: Bool,
        take: (PacketRing.Entry, UnsafeRawBufferPointer) -> Void
    ) -> (step: Step, resumeEpisode: Int?) {
        if let flush = pendingFlush {
            pendingFlush = nil
            return (.flush(flush), nil)
        }
        guard ring != nil, let newest = newestFormat else { return (.idle, nil) }
        if let entry = ring!.next {
            if entry.formatIndex != decoderFormat, decoderFormat == nil || running {
                return (.format(index: entry.formatIndex, formats[entry.formatIndex]), nil)
            }
        } else if decoderFormat == nil {
            return (.format(index: newest, formats[newest]), nil)
        }
        if isEnded, ring!.unplayedCount == 0 { return (.ended, nil) }
        guard running else { return (.idle, nil) }
        guard
            let entry = ring!.playNext({ entry, bytes in
                take(entry, bytes); return entry
            })
        else { return (.empty, nil) }
        var resume: Int?
        if isProducerPaused, let low = lowWatermark, ring!.unplayedBytes < low {
            isProducerPaused = false
            resume = pauseEpisode
        }
        return (.packet(entry), resume)
    }

    /// The playback side's position, as of seek `generation`; ignored when a later seek was
    /// made since (its target stands until the playback side reaches it).
    mutating func publishPosition(_ nanoseconds: Int64, generation: Int) {
        guard generation == flushGeneration else { return }
        position = nanoseconds
        positionGeneration = generation
    }
}

// MARK: - Seeking

extension PacketQueue {
    /// Whether a seek to raw stream frame `frame`, with `priming` packets before it, can be
    /// played from the packets kept.
    func holds(frame: Int64, priming: Int) -> Bool {
        ring?.canRewind(toFrame: frame, before: priming) ?? false
    }

    /// Moves playback to the kept packets holding raw frame `frame` (`priming` packets earlier
    /// where kept) and posts the seek's flush; false (and nothing changed) when they are not kept.
    mutating func rewind(toFrame frame: Int64, priming: Int, position: Int64) -> Bool {
        guard ring?.rewind(toFrame: frame, before: priming) != nil else { return false }
        postFlush(seekFrame: frame, position: position)
        return true
    }

    private mutating func postFlush(seekFrame: Int64, position: Int64) {
        flushGeneration += 1
        pendingFlush = Flush(generation: flushGeneration, seekFrame: seekFrame, position: position)
        self.position = position
        positionGeneration = flushGeneration
        readyWatermark = nil
    }
}
