/// What the format parsers learn, shared by all of them: the discrete properties, the packet
/// counts and running sums, and the seek table. Turns a packet's place in the stream into its
/// time, and the sums into the properties a caller reads.
package struct StreamState: Sendable {
    package var hints: AudioStreamHints
    /// The properties the parsers set directly (format, data offset, tags, delay ...); totals,
    /// duration and bit rate are filled in by `snapshot()`.
    package var properties = AudioStreamProperties()
    /// A discrete property changed since the sink was last told.
    package var changed = false
    package var seekTable = AudioSeekTable()

    /// Totals the file states (Xing/VBRI, WAV `data` size): packets, bytes and frames.
    package var headerPacketCount: Int64?
    package var headerByteCount: Int64?
    package var headerFrameCount: Int64?
    /// The bit rate a Xing ("VBR") or VBRI header implies, in bit/s.
    package var headerBitRate: Double?
    /// The exact bit rate of PCM, in bit/s.
    package var pcmBitRate: Double?
    /// The header bit rate (kbit/s) every MPEG frame so far has had: `nil` before the first,
    /// 0 once two differ or for free format.
    package var commonFrameBitRate: Int?
    /// The stream is free-format MPEG audio: one bit rate throughout, stated by no header.
    package var isFreeFormat = false

    /// Packets, bytes and frames seen since the start.
    package private(set) var packetsSeen: Int64 = 0
    package private(set) var bytesSeen: Int64 = 0
    package private(set) var framesSeen: Int64 = 0
    /// The first frame of the next packet, or `nil` when unknown (after a discontinuity).
    package var nextFrame: Int64? = 0
    /// Where the next packet starts, in seconds, when that is known before the sample rate (a
    /// source that joined the stream after its start): made `nextFrame` at the next packet.
    package var nextStartSeconds: Double?
    /// Every byte from the start has been seen, in order.
    package var isContinuous = true
    /// The stream has ended.
    package var isFinished = false

    package init(hints: AudioStreamHints) {
        self.hints = hints
        seekTable.streamSize = hints.totalByteCount
    }

    /// Sets a property, noting a change when the value differs.
    package mutating func set<Value: Equatable>(_ keyPath: WritableKeyPath<AudioStreamProperties, Value>, _ value: Value) {
        guard properties[keyPath: keyPath] != value else { return }
        properties[keyPath: keyPath] = value
        changed = true
    }

    /// Sets the format and, on the first packet, the seek table's geometry.
    package mutating func setFormat(_ format: AudioFormat) {
        set(\.format, format)
        seekTable.sampleRate = format.sampleRate
        seekTable.framesPerPacket = format.framesPerPacket
    }

    /// Accounts for a packet and describes it.
    package mutating func recordPacket(offset: Int64, size: Int, frameCount: Int) -> AudioPacket {
        if properties.dataOffset == nil {
            set(\.dataOffset, offset)
            seekTable.dataOffset = offset
        }
        if let seconds = nextStartSeconds, let rate = properties.format?.sampleRate, rate > 0 {
            nextFrame = Int64(clamping: seconds * Double(rate), rounding: .toNearestOrAwayFromZero)
            nextStartSeconds = nil
        }
        if nextFrame == nil { nextFrame = seekTable.startFrame(ofPacketAt: offset) }
        let startFrame = nextFrame
        if let startFrame {
            seekTable.index.record(offset: offset, size: size, frameCount: frameCount, startFrame: startFrame)
        }
        nextFrame = startFrame.map { $0 + Int64(frameCount) }
        packetsSeen += 1
        bytesSeen += Int64(size)
        framesSeen += Int64(frameCount)
        // (An Ogg packet may give no frames: Vorbis's first, Opus's within its pre-skip.)
        if framesSeen > 0 { seekTable.meanBytesPerFrame = Double(bytesSeen) / Double(framesSeen) }
        let rate = properties.format?.sampleRate ?? 0
        let time = startFrame.flatMap { rate > 0 ? Double($0) / Double(rate) : nil }
        return AudioPacket(offset: offset, size: size, frameCount: frameCount, startFrame: startFrame, startTime: time)
    }

    /// Accounts for packets counted without being parsed (uncompressed audio a reader jumped
    /// over), the first of them at `offset`. The seek table's index does not reach into them:
    /// such audio is sought by arithmetic.
    package mutating func recordPackets(_ count: PCMDataChunk.Count, from offset: Int64) {
        guard count.packets > 0 else { return }
        if properties.dataOffset == nil {
            set(\.dataOffset, offset)
            seekTable.dataOffset = offset
        }
        nextFrame = nextFrame.map { $0 + count.frames }
        packetsSeen += count.packets
        bytesSeen += count.bytes
        framesSeen += count.frames
        if framesSeen > 0 { seekTable.meanBytesPerFrame = Double(bytesSeen) / Double(framesSeen) }
    }

    /// Notes an MPEG frame's header bit rate (kbit/s, 0 for free format).
    package mutating func noteFrameBitRate(_ kbps: Int) {
        commonFrameBitRate = commonFrameBitRate.map { $0 == kbps ? $0 : 0 } ?? kbps
    }

    /// The properties with totals, duration and bit rate worked out from what is known now.
    package func snapshot() -> AudioStreamProperties {
        var result = properties
        guard let format = properties.format, format.sampleRate > 0 else { return result }
        let rate = Double(format.sampleRate)
        result.bitRate = bitRate(sampleRate: rate)
        var totalFrames: Int64?
        if isFinished, isContinuous {
            (result.packetCount, result.audioDataByteCount, totalFrames) = (packetsSeen, bytesSeen, framesSeen)
            result.totalsSource = .counted
        } else if let frames = headerFrameCount {
            (result.packetCount, result.audioDataByteCount, totalFrames) = (headerPacketCount, headerByteCount, frames)
            result.totalsSource = .header
        }
        // A whole stream shorter than the audio bytes its header counts was cut short (a download
        // that stopped): its length is the header's in proportion to the audio there is.
        if !(isFinished && isContinuous), let frames = totalFrames, let stated = headerByteCount, stated > 0,
            let total = hints.totalByteCount, total < stated, let dataOffset = properties.dataOffset
        {
            let there = Double(max(total - dataOffset, 0)) / Double(stated)
            (result.packetCount, result.audioDataByteCount) = (nil, max(total - dataOffset, 0))
            let trimmed = Int64(clamping: Double(frames) * there)
            result.trimmedFrameCount = trimmed
            result.duration = Double(trimmed) / rate
            result.durationSource = .estimate
        } else if let totalFrames {
            let trimmed = max(totalFrames - Int64(properties.encoderDelay ?? 0) - Int64(properties.encoderPadding ?? 0), 0)
            result.trimmedFrameCount = trimmed
            result.duration = Double(trimmed) / rate
            result.durationSource = result.totalsSource
        } else if let duration = hints.duration {
            (result.duration, result.durationSource) = (duration, .header)
        } else if let total = hints.totalByteCount, let dataOffset = properties.dataOffset,
            let bitRate = result.bitRate, bitRate.bitsPerSecond > 0
        {
            result.duration = Double(max(total - dataOffset, 0)) * 8 / bitRate.bitsPerSecond
            result.durationSource = .estimate
        }
        return result
    }

    private func bitRate(sampleRate rate: Double) -> AudioStreamProperties.BitRate? {
        if let pcmBitRate { return .init(bitsPerSecond: pcmBitRate, mode: .constant, source: .frameHeader) }
        if let headerBitRate { return .init(bitsPerSecond: headerBitRate, mode: .variable, source: .vbrHeader) }
        if let kbps = commonFrameBitRate, kbps > 0 {
            return .init(bitsPerSecond: Double(kbps) * 1000, mode: .constant, source: .frameHeader)
        }
        guard framesSeen > 0 else { return nil }
        let mean = Double(bytesSeen) * 8 * rate / Double(framesSeen)
        return .init(bitsPerSecond: mean, mode: isFreeFormat ? .constant : .variable, source: .runningMean)
    }
}
