/// The CAF stage of `AudioStreamParser`: Apple's Core Audio Format, big-endian chunks with 64-bit
/// sizes after `caff`; `desc` for the format: linear PCM (`lpcm`: signed integers of 8, 16, 24 or
/// 32 bits or floats of 32 or 64, either byte order), its `data` (after its 4-byte edit count) cut
/// into packets (`PCMDataChunk`), a `data` chunk of size -1 running to the end; or AAC (`aac `),
/// its AudioSpecificConfig from the magic cookie (`kuki`, an ES descriptor), its packets
/// delimited by the packet table (`pakt`), which also gives the priming and remainder frames
/// gapless playback trims. A table after the audio (as a recorder or ffmpeg writes it) is read
/// first: the audio is skipped (`prefersJump` tells a reader that can seek to jump over it),
/// then read again from its start. The rest is skipped.
package struct CAFParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case fileHeader
        case chunkHeader
        case data(PCMDataChunk)
        /// Inside a packet table, `remaining` bytes of it still to come.
        case packetTable(remaining: Int64)
        /// Inside AAC audio, which ends at `end` (`nil`: at the stream's end).
        case packets(end: Int64?)
        /// Past the audio (after a discontinuity outside it): nothing more is emitted.
        case ended
    }

    /// The largest magic cookie read (bytes).
    private static let maximumCookieSize = 4096

    private var phase = Phase.fileHeader
    private var layout: AudioFormat.PCMLayout?
    /// The `data` chunk's audio, once found.
    private var data: PCMDataChunk?
    /// AAC: the frames in each packet `desc` states, the configuration from the cookie, the
    /// packet table as it is read, the packets once placed, and the next packet.
    private var aacFramesPerPacket: Int?
    private var config: AudioSpecificConfig?
    private var cookie: [UInt8] = []
    private var packetTable: CAFPacketTable?
    private var packets: MP4SampleTable?
    private var cursor: MP4SampleCursor?
    /// Where AAC's audio ends, when its size is stated.
    private var packetsEnd: Int64?
    /// AAC's audio, passed over to read the packet table after it: its start and size.
    private var audioBeforeTable: (start: Int64, size: Int64)?
    /// The packet table came after the audio: once the packets end, so does the stream's use.
    private var tableFollowsAudio = false
    /// The bytes being skipped are AAC's audio before its packet table, better jumped over.
    package private(set) var prefersJump = false

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        prefersJump = false
        switch phase {
        case .fileHeader:
            guard window.count >= 8 else { return isFinal ? .skip(Int64(window.count)) : .need(8) }
            phase = .chunkHeader
            return .skip(8)
        case .chunkHeader:
            guard window.count >= 12 else { return isFinal ? .skip(Int64(window.count)) : .need(12) }
            let size = Int64(bitPattern: window.bigEndian(at: 4, count: 8))
            if window.starts(with: "desc") {
                guard size == 32 else {
                    throw AudioParserError(code: .malformed, message: "CAF desc chunk of \(size) bytes", offset: offset)
                }
                guard window.count >= 44 else { return isFinal ? .skip(Int64(window.count)) : .need(44) }
                try readDescription(UnsafeRawBufferPointer(rebasing: window[12..<44]), offset: offset, state: &state)
                return .skip(44)
            }
            guard size >= 0 || window.starts(with: "data") else {
                throw AudioParserError(code: .malformed, message: "CAF chunk of \(size) bytes", offset: offset)
            }
            if aacFramesPerPacket != nil, window.starts(with: "kuki") {
                return try readCookie(window, size: size, offset: offset, isFinal: isFinal)
            }
            if let framesPerPacket = aacFramesPerPacket, window.starts(with: "pakt") {
                guard size >= Int64(CAFPacketTable.headerSize) else {
                    throw AudioParserError(code: .malformed, message: "CAF packet table (pakt) of \(size) bytes", offset: offset)
                }
                let total = 12 + CAFPacketTable.headerSize
                guard window.count >= total else { return isFinal ? .skip(Int64(window.count)) : .need(total) }
                packetTable = try CAFPacketTable(
                    header: UnsafeRawBufferPointer(rebasing: window[12..<total]), size: size,
                    framesPerPacket: config?.framesPerPacket ?? framesPerPacket, offset: offset)
                phase = .packetTable(remaining: size - Int64(CAFPacketTable.headerSize))
                return .skip(Int64(total))
            }
            guard window.starts(with: "data") else { return .skip(12 + size) }
            guard size == -1 || size >= 4 else { return .skip(12 + size) }
            if aacFramesPerPacket != nil {
                guard packetTable != nil else { return try passOverAudio(at: offset, size: size) }
                try placePackets(at: offset + 16, size: size == -1 ? nil : size - 4, offset: offset, state: &state)
                return .skip(16)
            }
            guard let layout else {
                throw AudioParserError(code: .malformed, message: "CAF data chunk before the desc chunk", offset: offset)
            }
            let chunk = PCMDataChunk(layout: layout, start: offset + 16, size: size == -1 ? nil : size - 4)
            chunk.noteStart(&state)
            data = chunk
            phase = .data(chunk)
            return .skip(16)
        case .data(var chunk):
            guard let step = chunk.step(window, isFinal: isFinal) else {
                phase = .chunkHeader
                return try self.step(window, offset: offset, isFinal: isFinal, state: &state)
            }
            phase = .data(chunk)
            return step
        case .packetTable(let remaining):
            let count = Int(min(Int64(window.count), remaining))
            try packetTable?.read(UnsafeRawBufferPointer(rebasing: window[..<count]), offset: offset)
            guard remaining == Int64(count) else {
                phase = .packetTable(remaining: remaining - Int64(count))
                return .skip(Int64(count))
            }
            phase = .chunkHeader
            if let table = packetTable, !table.isComplete {
                // At the table's end (where this piece of it ends), whatever pieces it came in.
                throw AudioParserError(
                    code: .malformed,
                    message: "CAF packet table (pakt) holds \(table.table.sizes.count) of its \(table.packetCount) packet sizes",
                    offset: offset + Int64(count))
            }
            guard let audio = audioBeforeTable else { return .skip(Int64(count)) }
            // Back to the audio, now that its packets are known.
            audioBeforeTable = nil
            tableFollowsAudio = true
            try placePackets(at: audio.start, size: audio.size, offset: offset, state: &state)
            return .jump(to: audio.start)
        case .packets(let end):
            return nextPacket(window, offset: offset, end: end, isFinal: isFinal)
        case .ended:
            return .skip(Int64(window.count))
        }
    }

    /// In the audio, counts the rest of it without its bytes and moves past it: PCM by
    /// `PCMDataChunk.countRest`, AAC from the packet table (the packets that end within the
    /// audio and the source); `nil` elsewhere.
    package mutating func countRestOfAudio(from offset: Int64, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        if case .packets(let end) = phase { return countRestOfPackets(from: offset, end: end, sourceEnd: sourceEnd) }
        guard case .data(var chunk) = phase, let count = chunk.countRest(from: offset, sourceEnd: sourceEnd) else { return nil }
        phase = .data(chunk)
        return count
    }

    /// After a discontinuity to `offset`: inside the audio, the next packet starts at the next
    /// frame boundary, or AAC's at the next packet the table places at or after `offset` (the
    /// bytes to skip to reach it are returned); elsewhere, parsing starts over if `offset` is 0,
    /// and otherwise nothing more is emitted.
    package mutating func resynchronise(at offset: Int64) -> Int64 {
        prefersJump = false
        audioBeforeTable = nil
        if let packets, offset > 0 {
            cursor = packets.sample(atOrAfter: offset)
            phase = cursor == nil ? .ended : .packets(end: packetsEnd)
            return 0
        }
        guard let (chunk, skip) = data?.resynchronised(at: offset) else {
            phase = offset == 0 ? .fileHeader : .ended
            return 0
        }
        phase = .data(chunk)
        return skip
    }

    // MARK: - AAC

    /// Reads the magic cookie of AAC: the ES descriptor's AudioSpecificConfig, the format (set
    /// with the packet table's figures, which a player takes with it).
    private mutating func readCookie(
        _ window: UnsafeRawBufferPointer, size: Int64, offset: Int64, isFinal: Bool
    ) throws(AudioParserError) -> ParseStep {
        guard size <= Self.maximumCookieSize else {
            throw AudioParserError(code: .malformed, message: "CAF magic cookie (kuki) of \(size) bytes", offset: offset)
        }
        let total = 12 + Int(size)
        guard window.count >= total else { return isFinal ? .skip(Int64(window.count)) : .need(total) }
        guard case .aac(let bytes) = MP4LeafBoxes.elementaryStream(UnsafeRawBufferPointer(rebasing: window[12..<total])),
            let config = AudioSpecificConfig(bytes)
        else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "CAF with AAC whose magic cookie (kuki) holds no AAC configuration libfaad2 decodes",
                offset: offset)
        }
        self.config = config
        cookie = bytes
        return .skip(Int64(total))
    }

    /// At AAC's `data` chunk (at `offset`, of `size` bytes) before its packet table: the audio
    /// skipped (a reader that can seek jumps), to be read again once the table is known.
    private mutating func passOverAudio(at offset: Int64, size: Int64) throws(AudioParserError) -> ParseStep {
        guard size >= 0 else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "CAF with AAC whose audio runs to the end without a packet table (pakt) before it",
                offset: offset)
        }
        audioBeforeTable = (offset + 16, size - 4)
        prefersJump = true
        return .skip(12 + size)
    }

    /// The error at the stream's end, if AAC's audio was passed over for a packet table that
    /// never came.
    package func failureAtEnd() -> AudioParserError? {
        guard let audio = audioBeforeTable else { return nil }
        return AudioParserError(
            code: .malformed, message: "CAF with AAC whose packet table (pakt) is missing", offset: audio.start - 16)
    }

    /// At AAC's audio of `size` bytes (`nil`: to the end) from `start`: the packet table placed
    /// there, the totals, gapless figures and seek table it gives, and the first packet next.
    private mutating func placePackets(
        at start: Int64, size: Int64?, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) {
        guard let config else {
            throw AudioParserError(code: .malformed, message: "CAF data chunk before the magic cookie (kuki) of its AAC", offset: offset)
        }
        guard let table = packetTable else { return }
        state.setFormat(
            AudioFormat(
                codec: .aacRaw, codecDescription: "\(config.description) (CAF)", sampleRate: config.outputSampleRate,
                channels: config.outputChannels, framesPerPacket: config.framesPerPacket, magicCookie: cookie))
        let placed = table.placed(at: start)
        let bytes = table.packetCount > 0 ? placed.totalSize : 0
        if let size, bytes > size {
            throw AudioParserError(
                code: .malformed,
                message: "CAF packet table (pakt) placing \(bytes) bytes of packets in \(size) bytes of audio", offset: start)
        }
        packets = placed
        packetsEnd = size.map { start + $0 }
        cursor = table.packetCount > 0 ? placed.firstSample() : nil
        let totalFrames = Int64(table.packetCount) * Int64(config.framesPerPacket)
        state.set(\.encoderDelay, Int(table.primingFrames))
        state.set(\.encoderPadding, Int(table.remainderFrames))
        state.set(\.statedPacketCount, Int64(table.packetCount))
        state.headerPacketCount = Int64(table.packetCount)
        state.headerFrameCount = totalFrames
        state.headerByteCount = bytes
        if totalFrames > 0 { state.headerBitRate = Double(bytes) * 8 * Double(config.outputSampleRate) / Double(totalFrames) }
        state.set(\.dataOffset, start)
        state.seekTable.dataOffset = start
        if table.packetCount > 0 {
            state.seekTable.sampleTable = placed
            state.set(\.isSeekableByTime, true)
        }
        state.changed = true
        phase = .packets(end: packetsEnd)
    }

    /// The next AAC packet; after the last, on to the chunks after the audio.
    private mutating func nextPacket(_ window: UnsafeRawBufferPointer, offset: Int64, end: Int64?, isFinal: Bool) -> ParseStep {
        guard let packets, let cursor else {
            // The chunks after the audio were read before it when the table was among them.
            phase = end == nil || tableFollowsAudio ? .ended : .chunkHeader
            return end.map { .skip(max($0 - offset, 0)) } ?? .skip(Int64(window.count))
        }
        if cursor.offset > offset { return .skip(cursor.offset - offset) }
        let size = packets.size(of: cursor.index)
        guard window.count >= size else { return isFinal ? .skip(Int64(window.count)) : .need(size) }
        self.cursor = packets.advance(cursor)
        return .packet(size: size, frames: config?.framesPerPacket ?? 0)
    }

    /// AAC packets from `offset` on, counted from the table: those ending within the audio
    /// (`end`) and the source (`sourceEnd`); `nil` when neither end is known.
    private mutating func countRestOfPackets(from offset: Int64, end: Int64?, sourceEnd: Int64?) -> PCMDataChunk.Count? {
        guard let packets, var cursor = self.cursor, end != nil || sourceEnd != nil, let config else { return nil }
        let stop = min(end ?? .max, sourceEnd ?? .max)
        var count = PCMDataChunk.Count(packets: 0, bytes: 0, frames: 0, used: 0)
        var last = offset
        while cursor.offset >= last {
            let size = Int64(packets.size(of: cursor.index))
            guard cursor.offset + size <= stop else { break }
            count.packets += 1
            count.bytes += size
            count.frames += Int64(config.framesPerPacket)
            last = cursor.offset + size
            guard let next = packets.advance(cursor) else {
                self.cursor = nil
                count.used = last - offset
                return count
            }
            cursor = next
        }
        self.cursor = cursor
        count.used = last - offset
        return count
    }

    /// Reads a `desc` chunk body: the sample rate (a 64-bit float), the format id and flags,
    /// bytes and frames per packet, channels and bits.
    private mutating func readDescription(
        _ body: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) {
        let rate = Double(bitPattern: body.bigEndian(at: 0, count: 8))
        let formatID = String(decoding: body[8..<12], as: UTF8.self)
        let flags = body.bigEndian(at: 12, count: 4)
        let bytesPerPacket = Int(body.bigEndian(at: 16, count: 4)), framesPerPacket = Int(body.bigEndian(at: 20, count: 4))
        let channels = Int(body.bigEndian(at: 24, count: 4)), bits = Int(body.bigEndian(at: 28, count: 4))
        if formatID == "aac " {
            // The format is set by the magic cookie, whose configuration is the decoder's.
            guard rate.isFinite, rate >= 1, rate < 10_000_000, (1...8).contains(channels), bytesPerPacket == 0,
                [960, 1024, 1920, 2048].contains(framesPerPacket)
            else {
                throw AudioParserError(
                    code: .unsupportedFormat,
                    message:
                        "CAF with AAC of \(channels) channels, \(rate) Hz, \(bytesPerPacket)-byte packets of \(framesPerPacket) frames",
                    offset: offset)
            }
            aacFramesPerPacket = framesPerPacket
            return
        }
        guard formatID == "lpcm" else {
            throw AudioParserError(
                code: .unsupportedFormat, message: "CAF with '\(formatID)' audio (only PCM and AAC are supported)", offset: offset)
        }
        let isFloat = flags & 1 != 0, isLittleEndian = flags & 2 != 0
        guard rate.isFinite, rate >= 1, rate < 10_000_000, (1...64).contains(channels), framesPerPacket == 1,
            (isFloat ? [32, 64] : [8, 16, 24, 32]).contains(bits), bytesPerPacket == channels * bits / 8
        else {
            throw AudioParserError(
                code: .unsupportedFormat,
                message: "CAF with \(channels) channels, \(rate) Hz, \(bits) bits, \(bytesPerPacket)-byte frames", offset: offset)
        }
        let layout = AudioFormat.PCMLayout(
            bitsPerSample: bits, bytesPerFrame: bytesPerPacket, isFloat: isFloat, isBigEndian: !isLittleEndian)
        self.layout = layout
        let description = "CAF PCM \(bits)-bit \(isFloat ? "float" : "signed") \(isLittleEndian ? "little" : "big")-endian"
        PCMDataChunk.announce(
            layout, sampleRate: Int(rate.rounded()), channels: channels, description: description, state: &state)
    }
}
