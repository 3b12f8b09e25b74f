/// The parser's sink on the network thread: stores packets in the packet queue (creating it
/// once the format is known), gives packets without a known position the next frame in line,
/// and drops packets before a seek target as they arrive.
struct QueueFeedSink: AudioStreamSink {
    var queue: PacketQueue?
    let limit: AudioStreamerConfiguration.BufferLimit
    var nextFrameGuess: Int64
    var dropBeforeFrame: Int64?
    /// The properties, when they changed during this parse.
    var changedProperties: AudioStreamProperties?
    /// Set when the stream cannot be played.
    var failure: AudioStreamerError?

    /// Takes the queue out of `core` for the length of one parse call.
    init(taking core: inout PlayerCore, limit: AudioStreamerConfiguration.BufferLimit) {
        queue = core.queue
        core.queue = nil
        self.limit = limit
        nextFrameGuess = core.nextFrameGuess
        dropBeforeFrame = core.dropBeforeFrame
    }

    /// Puts the queue and what changed back into `core`.
    func store(into core: inout PlayerCore) {
        core.queue = queue
        core.nextFrameGuess = nextFrameGuess
        core.dropBeforeFrame = dropBeforeFrame
        if let changedProperties { core.properties = changedProperties }
    }

    mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        changedProperties = properties
        if queue == nil, let format = properties.format {
            queue = PacketQueue(limit: Self.byteLimit(limit, format: format, bitRate: properties.bitRate?.bitsPerSecond))
        }
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        let start = packet.startFrame ?? nextFrameGuess
        nextFrameGuess = start + Int64(packet.frameCount)
        if let drop = dropBeforeFrame {
            if nextFrameGuess <= drop { return }
            dropBeforeFrame = nil
        }
        guard queue != nil else {
            failure = AudioStreamerError(.unsupportedFormat, "a packet came before the stream's format was known")
            return
        }
        var packet = packet
        packet.startFrame = start
        queue!.append(bytes, packet: packet)
    }

    /// The queue's byte limit for a configured limit (`nil`: unbounded).
    static func byteLimit(_ limit: AudioStreamerConfiguration.BufferLimit, format: AudioFormat, bitRate: Double?) -> Int? {
        switch limit {
        case .unlimited:
            return nil
        case .bytes(let bytes):
            return max(bytes, 16 * 1024)
        case .seconds(let seconds):
            // PCM: exact; compressed: at the bit rate known so far, else as if 320 kbps.
            let bitsPerSecond = format.pcm.map { Double($0.bytesPerFrame * format.sampleRate * 8) } ?? bitRate ?? 320_000
            return max(Int(seconds * bitsPerSecond / 8), 64 * 1024)
        }
    }
}
