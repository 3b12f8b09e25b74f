/// Where a seek lands and how it gets there, from what is known: values in, a plan out, no I/O.
///
/// A seek is planned in three steps, each by the side that knows what it needs:
/// 1. `target`: the time as stream frames (the streamer, from the format and the decoder's
///    gapless trim and priming);
/// 2. `plan`: whether the kept packets hold it, else whether the network can fetch it (the
///    streamer, under the packet queue's lock);
/// 3. `network`: read on, or reconnect where (the network side, from its seek table and what
///    it knows of the connection).
enum SeekPlanner {
    /// What a seek needs to know of the stream and its decoder.
    struct Stream: Hashable, Sendable {
        /// Frames per second.
        var sampleRate: Int
        /// Frames in a packet.
        var framesPerPacket: Int
        /// The stream's length in seconds, where known: later targets go to the end.
        var duration: Double?
        /// Which decoded frames are heard.
        var trim: GaplessTrim
        /// Packets the decoder needs before a seek point.
        var primingPackets: Int
        /// Whether the network can fetch from elsewhere: a file, or a stream of known size (a
        /// live stream of unknown size cannot).
        var canSeekNetwork: Bool
    }

    /// Where a seek to a time lands.
    struct Target: Hashable, Sendable {
        /// The frame heard at the target (0 = the first frame kept by gapless trimming).
        var presentationFrame: Int64
        /// The stream frame decoded there (before trimming).
        var rawFrame: Int64
        /// The first frame to decode: `primingPackets` packets earlier (not before 0).
        var primedFrame: Int64
        /// The target's time in nanoseconds (the clock's value after the seek).
        var position: Int64
        /// The primed frame's time in seconds, for the seek table.
        var primedTime: Double
    }

    /// How the target is reached.
    enum Plan: Hashable, Sendable {
        /// From the packets kept in the queue: no network.
        case buffered(Target)
        /// By the network (reading on, or from another offset).
        case network(Target)
    }

    /// What the network side does for a seek the queue cannot serve.
    enum NetworkPlan: Hashable, Sendable {
        /// Keep the connection: it reaches the target by reading on (a forward seek where the
        /// server answers no ranges); packets ending before `dropBefore` are dropped as they come.
        case readOn(dropBefore: Int64)
        /// A new connection from `offset`, whose first packet starts at stream frame
        /// `firstFrame` (`estimated` when the seek table only estimated it); packets ending
        /// before `dropBefore` are dropped as they come.
        case connect(offset: Int64, firstFrame: Int64, estimated: Bool, dropBefore: Int64)
        /// A new connection at `time` seconds (a source that seeks by time: it says where its
        /// bytes start, about `firstFrame` until it does); packets ending before `dropBefore`
        /// are dropped as they come.
        case connectAt(time: Double, firstFrame: Int64, dropBefore: Int64)
    }

    /// Refuses a seek to `time` seconds past the stream's `duration`, where it is known: the
    /// target is outside the stream. (A time a little past it, within a millisecond, is the end.)
    static func checkInside(_ time: Double, duration: Double?) throws(AudioStreamerError) {
        guard let duration, time > duration + 0.001 else { return }
        throw AudioStreamerError(
            .seek, "cannot seek to \(formatSeconds(time)): the stream is \(formatSeconds(duration)) long")
    }

    /// The target of a seek to `time` seconds (clamped to the stream), or the reason there is none.
    static func target(time: Double, stream: Stream) throws(AudioStreamerError) -> Target {
        guard stream.sampleRate > 0, time.isFinite else {
            throw AudioStreamerError(.seek, "cannot seek to \(time) s: the stream's format is not known")
        }
        // Held to the longest time taken (a later sample count cannot overflow), then to the stream.
        var seconds = min(max(time, 0), Duration.maximumSeconds)
        if let duration = stream.duration { seconds = min(seconds, max(duration, 0)) }
        let rate = Double(stream.sampleRate)
        let presentation = Int64(seconds * rate)
        let raw = stream.trim.rawFrame(ofPresentationFrame: presentation)
        let primed = max(raw - Int64(stream.primingPackets * max(stream.framesPerPacket, 0)), 0)
        return Target(
            presentationFrame: presentation, rawFrame: raw, primedFrame: primed,
            position: MonotonicTime.nanoseconds(frames: presentation, rate: stream.sampleRate),
            primedTime: Double(primed) / rate)
    }

    /// From the queue when `isBuffered` (it keeps the packets from the primed frame on), else
    /// by the network if it can seek; a live stream cannot.
    static func plan(_ target: Target, isBuffered: Bool, stream: Stream) throws(AudioStreamerError) -> Plan {
        if isBuffered { return .buffered(target) }
        guard stream.canSeekNetwork else { throw AudioStreamerError(.seek, "cannot seek in a live stream") }
        return .network(target)
    }

    /// The network side's part of a seek to `target`: `seekPoint` is its seek table's answer
    /// for the primed time (nil when it has none), `rangesSupported` what the server said to a
    /// range request (nil before one), `isConnected` whether a connection is open, `nextFrame`
    /// the stream frame of the next packet it will read; a source that `seeksByTime` (HLS) is
    /// asked for the primed time instead.
    static func network(
        _ target: Target, seekPoint: AudioSeekPoint?, rangesSupported: Bool?,
        isConnected: Bool, nextFrame: Int64, seeksByTime: Bool = false
    ) -> NetworkPlan {
        let drop = target.primedFrame
        if seeksByTime { return .connectAt(time: target.primedTime, firstFrame: drop, dropBefore: drop) }
        // No ranges here: a forward seek reads on and drops what comes before the target.
        if rangesSupported == false, target.rawFrame >= nextFrame, isConnected { return .readOn(dropBefore: drop) }
        guard rangesSupported != false, let point = seekPoint else {
            return .connect(offset: 0, firstFrame: 0, estimated: false, dropBefore: drop)
        }
        return .connect(offset: point.offset, firstFrame: point.frame, estimated: !point.isExact, dropBefore: drop)
    }
}
