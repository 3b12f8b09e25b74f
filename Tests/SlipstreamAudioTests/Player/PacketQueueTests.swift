import Testing
import TestSupport
@testable import SlipstreamAudio

/// The packet queue's policy alone (its ring has tests of its own): the backpressure watermarks,
/// readiness, formats and seeks in band, and the readings it hands back.
struct PacketQueueTests {
    static func format(_ rate: Int, channels: Int = 2) -> AudioFormat {
        AudioFormat(codec: .mp3, codecDescription: "MPEG-1 Layer III", sampleRate: rate, channels: channels, framesPerPacket: 1152)
    }

    static func record(_ rate: Int = 44100, firstFrame: Int64 = 0) -> PacketQueue.FormatRecord {
        var properties = AudioStreamProperties()
        properties.format = format(rate)
        return PacketQueue.FormatRecord(format: format(rate), properties: properties, firstFrame: firstFrame)
    }

    /// A queue of `limit` bytes with a format, and `count` packets of 1000 bytes and 1152 frames.
    static func queue(limit: AudioStreamerConfiguration.BufferLimit = .bytes(20_000), packets count: Int = 0) -> PacketQueue {
        var queue = PacketQueue(limit: limit, resumeFraction: 0.5)
        _ = queue.addFormat(record())
        for n in 0..<count { append(&queue, n) }
        return queue
    }

    @discardableResult
    static func append(_ queue: inout PacketQueue, _ n: Int, format: Int = 0, firstFrame: Int64 = 0) -> Bool {
        let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 1000)
        let packet = AudioPacket(
            offset: Int64(n * 1000), size: 1000, frameCount: 1152, startFrame: firstFrame + Int64(n * 1152), startTime: nil)
        return bytes.withUnsafeBytes { queue.append($0, packet: packet, formatIndex: format) }
    }

    /// The next step, with the packet's first byte when it is one.
    static func next(_ queue: inout PacketQueue, format: Int? = 0, running: Bool = true) -> (PacketQueue.Step, Int?, UInt8?) {
        var first: UInt8?
        let (step, resume) = queue.next(decoderFormat: format, running: running) { _, bytes in first = bytes.first }
        return (step, resume, first)
    }

    // MARK: - Backpressure

    @Test func theHighWatermarkPausesTheProducerAndTheLowOneLetsItGo() {
        var queue = Self.queue(limit: .bytes(20_000))
        var admitted = 0
        while queue.admit(1000, now: 1) == .accept {
            Self.append(&queue, admitted)
            admitted += 1
        }
        #expect(admitted == 20)
        #expect(queue.isProducerPaused)
        // A second refusal is the same pause.
        var admission = queue.admit(1000, now: 2)
        #expect(admission == .pause(episode: nil))
        #expect(queue.bytesReceived == 20_000)
        // Playing down to the low watermark (half of 20 000 bytes) lets the producer go once.
        var resumes: [Int] = []
        for _ in 0..<12 { if let episode = Self.next(&queue).1 { resumes.append(episode) } }
        #expect(resumes == [1])
        #expect(!queue.isProducerPaused)
        admission = queue.admit(1000, now: 3)
        #expect(admission == .accept)
        // The next pause is the second.
        for n in 20..<40 { Self.append(&queue, n) }
        admission = queue.admit(1000, now: 4)
        #expect(admission == .pause(episode: 2))
    }

    @Test func anUnlimitedQueueNeverPausesTheProducer() {
        var queue = Self.queue(limit: .unlimited)
        for n in 0..<3000 {
            let admission = queue.admit(1000, now: 0)
            #expect(admission == .accept)
            Self.append(&queue, n)
        }
        #expect(queue.highWatermark == nil && queue.lowWatermark == nil)
    }

    @Test func aNewConnectionIsNotPaused() {
        var queue = Self.queue(limit: .bytes(20_000), packets: 20)
        _ = queue.admit(1000, now: 0)
        #expect(queue.isProducerPaused)
        queue.producerConnected(now: 77)
        #expect(!queue.isProducerPaused && queue.lastByteTime == 77)
    }

    @Test func limitsInSecondsFollowTheFormat() {
        let pcm = AudioFormat(
            codec: .pcm, codecDescription: "PCM", sampleRate: 44100, channels: 2, framesPerPacket: 1024,
            pcm: .init(bitsPerSample: 16, bytesPerFrame: 4, isFloat: false, isBigEndian: false))
        #expect(PacketQueue.byteLimit(.seconds(10), format: pcm, bitRate: nil) == 1_764_000)
        #expect(PacketQueue.byteLimit(.seconds(30), format: pcm, bitRate: nil) == PacketQueue.maximumSecondsBytes)
        #expect(PacketQueue.byteLimit(.seconds(30), format: Self.format(44100), bitRate: 128_000) == 480_000)
        #expect(PacketQueue.byteLimit(.seconds(30), format: Self.format(44100), bitRate: nil) == 1_200_000)
        #expect(PacketQueue.byteLimit(.seconds(0.1), format: Self.format(44100), bitRate: 128_000) == 64 * 1024)
        #expect(PacketQueue.byteLimit(.bytes(10), format: Self.format(44100), bitRate: nil) == 16 * 1024)
        #expect(PacketQueue.byteLimit(.unlimited, format: Self.format(44100), bitRate: nil) == nil)
    }

    // MARK: - Readiness

    @Test func theReadinessWatermarkFiresOnceAtItsSeconds() {
        var queue = Self.queue()
        queue.armReady(seconds: 0.1, id: 7)
        // 0.1 s at 44.1 kHz is 4410 frames: the fourth packet of 1152.
        var fired: [Int?] = []
        for n in 0..<6 {
            Self.append(&queue, n)
            fired.append(queue.readyFired())
        }
        #expect(fired == [nil, nil, nil, 7, nil, nil])
    }

    @Test func aFullQueueIsReadyBeforeItsSeconds() {
        var queue = Self.queue(limit: .bytes(20_000))
        queue.armReady(seconds: 60, id: 3)
        var n = 0
        while queue.admit(1000, now: 0) == .accept {
            Self.append(&queue, n)
            n += 1
            let fired = queue.readyFired()
            #expect(fired == nil)
        }
        let fired = queue.readyFired()
        #expect(fired == 3)
    }

    @Test func theEndWithAudioQueuedIsReady() {
        var queue = Self.queue(packets: 1)
        queue.armReady(seconds: 5, id: 1)
        var fired = queue.readyFired()
        #expect(fired == nil)
        queue.markEnded()
        fired = queue.readyFired()
        #expect(fired == 1)
        // An empty stream that ended is not ready: there is nothing to play.
        var empty = Self.queue()
        empty.armReady(seconds: 5, id: 1)
        empty.markEnded()
        fired = empty.readyFired()
        #expect(fired == nil)
    }

    @Test func aSeekDisarmsTheWatermark() {
        var queue = Self.queue(packets: 10)
        queue.armReady(seconds: 60, id: 1)
        let rewound = queue.rewind(toFrame: 0, priming: 0, position: 0)
        #expect(rewound)
        for n in 10..<100 { Self.append(&queue, n) }
        let fired = queue.readyFired()
        #expect(fired == nil)
    }

    // MARK: - Formats in band

    @Test func theFirstFormatIsToldBeforeAnyPacketEvenWhenPaused() {
        var queue = Self.queue()
        var step = Self.next(&queue, format: nil, running: false).0
        #expect(step == .format(index: 0, Self.record()))
        var empty = PacketQueue(limit: .bytes(20_000), resumeFraction: 0.5)
        step = Self.next(&empty, format: nil).0
        #expect(step == .idle)
    }

    @Test func aFormatChangeComesBeforeTheFirstPacketOfTheNewFormat() {
        var queue = Self.queue(packets: 2)
        let second = Self.record(22050, firstFrame: 2304)
        let index = queue.addFormat(second)
        #expect(index == 1)
        Self.append(&queue, 2, format: 1)
        for _ in 0..<2 {
            let step = Self.next(&queue).0
            #expect(step.packetFormat == 0)
        }
        // Paused: the change waits until playing (the old format's audio is not drained early).
        var step = Self.next(&queue, format: 0, running: false).0
        #expect(step == .idle)
        step = Self.next(&queue, format: 0).0
        #expect(step == .format(index: 1, second))
        let (packet, _, first) = Self.next(&queue, format: 1)
        #expect(packet.packetFormat == 1 && first == 2)
        // The seconds queued follow the newest format's rate.
        Self.append(&queue, 3, format: 1)
        #expect(abs(queue.unplayedSeconds - 1152.0 / 22050) < 1e-9)
    }

    @Test func aSeekBackAcrossAFormatChangeFindsTheOldFormat() {
        var queue = Self.queue(limit: .unlimited, packets: 3)
        _ = queue.addFormat(Self.record(22050, firstFrame: 3456))
        for n in 3..<6 { Self.append(&queue, n, format: 1) }
        for _ in 0..<3 { _ = Self.next(&queue) }
        _ = Self.next(&queue, format: 0)
        for _ in 0..<3 { _ = Self.next(&queue, format: 1) }
        let rewound = queue.rewind(toFrame: 1200, priming: 0, position: 27_000_000)
        #expect(rewound)
        let flush = Self.next(&queue, format: 1).0
        #expect({ if case .flush = flush { true } else { false } }())
        let step = Self.next(&queue, format: 1).0
        #expect(step == .format(index: 0, Self.record()))
    }

    // MARK: - Seeks and the end

    @Test func aRewindPostsAFlushAndTheTargetIsThePositionUntilThePlaybackSideReachesIt() {
        var queue = Self.queue(packets: 10)
        for _ in 0..<8 { _ = Self.next(&queue) }
        queue.publishPosition(180_000_000, generation: 0)
        #expect(queue.position == 180_000_000)
        #expect(queue.holds(frame: 3000, priming: 2))
        #expect(!queue.holds(frame: 20_000, priming: 2))
        let rewound = queue.rewind(toFrame: 3000, priming: 2, position: 68_000_000)
        #expect(rewound)
        #expect(queue.position == 68_000_000)
        // The playback side's older readings are ignored until it takes the flush.
        queue.publishPosition(200_000_000, generation: 0)
        #expect(queue.position == 68_000_000)
        let step = Self.next(&queue).0
        #expect(step == .flush(PacketQueue.Flush(generation: 1, seekFrame: 3000, position: 68_000_000)))
        let (packet, _, first) = Self.next(&queue)
        #expect(packet.packetFormat == 0 && first == 0)
        queue.publishPosition(70_000_000, generation: 1)
        #expect(queue.position == 70_000_000)
    }

    @Test func clearingForTheNetworkEmptiesTheQueueAndPostsAFlush() {
        var queue = Self.queue(limit: .bytes(20_000), packets: 20)
        _ = queue.admit(1000, now: 0)
        queue.markEnded()
        queue.clear(seekFrame: 90_000, position: 2_000_000_000)
        #expect(!queue.isEnded && !queue.isProducerPaused)
        #expect(queue.unplayedSeconds == 0)
        var step = Self.next(&queue).0
        #expect(step == .flush(PacketQueue.Flush(generation: 1, seekFrame: 90_000, position: 2_000_000_000)))
        step = Self.next(&queue).0
        #expect(step == .empty)
        #expect(queue.appendedCount == 20)
    }

    @Test func theEndComesAfterTheLastPacketEvenWhenPaused() {
        var queue = Self.queue(packets: 2)
        queue.markEnded()
        var step = Self.next(&queue, running: false).0
        #expect(step == .idle)
        _ = Self.next(&queue)
        _ = Self.next(&queue)
        step = Self.next(&queue).0
        #expect(step == .ended)
        step = Self.next(&queue, running: false).0
        #expect(step == .ended)
    }

    @Test func onlyAdmittedBytesAreCountedAsReceived() {
        var queue = Self.queue(limit: .bytes(20_000), packets: 20)
        var admission = queue.admit(5000, now: 9)
        #expect(admission == .pause(episode: 1))
        #expect(queue.bytesReceived == 0)
        var fresh = Self.queue()
        admission = fresh.admit(5000, now: 9)
        #expect(admission == .accept)
        #expect(fresh.bytesReceived == 5000 && fresh.lastByteTime == 9)
    }
}

extension PacketQueue.Step {
    /// The format index of a packet step.
    var packetFormat: Int? {
        if case .packet(let entry) = self { entry.formatIndex } else { nil }
    }
}
