/// The parser's sink on the network side: adds each new format to the packet queue, gives
/// packets without a known position the next frame in line, drops packets before a seek target
/// as they arrive, and stores the rest in the queue (one short hold of its lock each), each radio
/// title with the first packet at or after the byte it starts at; gives the recorder, if any,
/// each packet stored, with its title.
struct NetworkSink: AudioStreamSink {
    let queue: SharedPacketQueue
    /// Told of new properties at once.
    let streamer: AudioStreamer
    /// Given each packet stored, with the title it starts.
    let recorder: StreamRecorder?
    /// The stream frame of the next packet, when the parser cannot say.
    var nextFrameGuess: Int64
    /// Packets ending before this stream frame are dropped.
    var dropBeforeFrame: Int64?
    /// The frames of the packets are estimates.
    let positionsEstimated: Bool
    /// The stream is live: it has no duration, whatever a relayed file's header says.
    let isLive: Bool
    /// The queue's index of the current format, and that format.
    var formatIndex: Int?
    var format: AudioFormat?
    /// Titles no packet has reached yet, oldest first, with the stream offset each starts at.
    var pendingTitles: [(offset: Int64, title: StreamTitle)]
    /// The title told last (a chained Ogg link's title is told only when it differs).
    var lastTitle: StreamTitle?
    /// A seek being found by probing: packets are stored only once it reads on.
    var search: SeekSearch?
    /// Set when the search probes again from this offset (nothing more is stored).
    var probe: Int64?
    /// The properties, when they changed during this parse.
    var changedProperties: AudioStreamProperties?
    /// A readiness watermark the stored packets reached.
    var readyWatermark: Int?
    /// Set when the stream cannot be played.
    var failure: AudioStreamerError?

    mutating func audioStream(propertiesChanged found: AudioStreamProperties) {
        var properties = found
        if isLive { properties.forgetTotals() }
        changedProperties = properties
        streamer.networkLearned(properties)
        if let title = properties.linkTitle, title != lastTitle {
            // A chained Ogg link's title: it starts with the link's first packet, the next one.
            lastTitle = title
            if pendingTitles.count == PacketQueue.keptTitles { pendingTitles.removeFirst() }
            pendingTitles.append((.min, title))
        }
        guard let new = properties.format, new != format else { return }
        format = new
        let record = PacketQueue.FormatRecord(format: new, properties: properties, firstFrame: nextFrameGuess)
        formatIndex = queue.withLock { $0.addFormat(record, keepsPlayed: !isLive) }
    }

    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        if search != nil {
            // Until the search settles, only the first placed packet counts: where it starts.
            guard probe == nil, let frame = packet.startFrame else { return }
            switch search!.placed(frame: frame) {
            case .readOn: search = nil
            case .probe(let offset):
                probe = offset
                return
            }
        }
        let start = packet.startFrame ?? nextFrameGuess
        nextFrameGuess = start + Int64(packet.frameCount)
        if let drop = dropBeforeFrame {
            if nextFrameGuess <= drop { return }
            dropBeforeFrame = nil
        }
        guard let formatIndex else {
            failure = AudioStreamerError(.unsupportedFormat, "a packet came before the stream's format was known", offset: packet.offset)
            return
        }
        var packet = packet
        packet.startFrame = start
        let estimated = positionsEstimated
        // The newest title this packet reached (the ones before it were never heard).
        var title: StreamTitle?
        while let first = pendingTitles.first, first.offset <= packet.offset {
            title = first.title
            pendingTitles.removeFirst()
        }
        let ready = queue.withLock { [title] queue -> Int? in
            _ = queue.append(
                bytes, packet: packet, formatIndex: formatIndex, estimated: estimated, titleID: title.map { queue.addTitle($0) })
            return queue.readyFired()
        }
        if let ready { readyWatermark = ready }
        if let recorder, let format { recorder.take(bytes, format: format, frameCount: packet.frameCount, title: title) }
    }
}
