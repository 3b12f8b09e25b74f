/// The MPEG audio (Layers I, II, III; MPEG-1, 2, 2.5) stage of `AudioStreamParser`: frames out
/// as packets, the Xing/Info or VBRI frame read for totals, seek table and gapless figures and
/// never emitted, free-format frame sizes found from the distance to the next header.
package struct MPEGAudioParser: Sendable {
    private var sync = FrameSync<MPEGFrameHeader>()
    /// The size of an unpadded free-format frame, once found.
    private var freeFormatSize: Int?
    /// The next frame is the stream's first: it may be a Xing/Info or VBRI frame.
    private var isAtFirstFrame = true

    /// The largest free-format frame searched for (bytes).
    package static let maximumFreeFormatSize = 8192

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(_ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState) -> ParseStep {
        let known = freeFormatSize
        let found = sync.next(window, isFinal: isFinal, state: &state) { header, window in
            Self.frameSize(header, window, freeFormatSize: known, isFinal: isFinal)
        }
        let (header, size, isNewFormat): (MPEGFrameHeader, Int, Bool)
        switch found {
        case .step(let step): return step
        case .frame(let h, let s, let n): (header, size, isNewFormat) = (h, s, n)
        }
        if header.bitRate == 0, freeFormatSize == nil {
            freeFormatSize = size - (header.isPadded ? (header.layer == 1 ? 4 : 1) : 0)
            state.isFreeFormat = true
        }
        if isNewFormat {
            state.setFormat(
                AudioFormat(
                    codec: header.codec, codecDescription: header.codecDescription,
                    sampleRate: header.sampleRate, channels: header.channels,
                    framesPerPacket: header.samplesPerFrame))
        }
        let frame = UnsafeRawBufferPointer(rebasing: window[..<size])
        if isAtFirstFrame {
            isAtFirstFrame = false
            if readInfoFrame(frame, header: header, offset: offset, state: &state) { return .skip(Int64(size)) }
        } else if isNewFormat, Self.isInfoFrame(frame, header: header) {
            // The first frame of a file joined on in another format (a station's next song): its
            // totals describe that file, not the stream, and it holds no audio. Passed over, so
            // the new part plays as the file alone would (no frame of silence at the change).
            return .skip(Int64(size))
        }
        state.noteFrameBitRate(header.bitRate)
        // CBR: every packet has the same mean size (padding spreads the remainder).
        if state.headerBitRate == nil, let kbps = state.commonFrameBitRate {
            state.seekTable.constantPacketSize =
                kbps > 0
                ? Double(kbps * 1000 * header.samplesPerFrame) / 8 / Double(header.sampleRate) : nil
        }
        state.set(\.isSeekableByTime, state.headerFrameCount != nil || state.seekTable.constantPacketSize != nil)
        return .packet(size: size, frames: header.samplesPerFrame)
    }

    /// After a discontinuity: the next frame must be confirmed, and is not the first.
    package mutating func resynchronise() {
        sync.loseSync()
        isAtFirstFrame = false
    }

    /// A frame's size: from its header, from the free-format size found earlier, or by finding
    /// the next agreeing free-format header.
    package static func frameSize(
        _ header: MPEGFrameHeader, _ window: UnsafeRawBufferPointer, freeFormatSize: Int?, isFinal: Bool
    ) -> FrameSync<MPEGFrameHeader>.Size {
        if let size = header.frameSize { return .bytes(size) }
        let slot = header.isPadded ? (header.layer == 1 ? 4 : 1) : 0
        if let freeFormatSize { return .bytes(freeFormatSize + slot) }
        // Frames of up to `limit` bytes (a padded Layer I slot is 4), each confirmed by the 4-byte
        // header after it: the answer is the same for any window holding the header after the
        // largest, so it is asked for whole (any split gives the same frames).
        let limit = maximumFreeFormatSize + 4
        let decided = limit + 4
        var i = 16
        while i + 4 <= window.count, i <= limit {
            if window[i] == 0xFF, let next = MPEGFrameHeader(window, at: i), next.bitRate == 0, header.agrees(with: next) {
                return .bytes(i)
            }
            i += 1
        }
        return window.count >= decided || isFinal ? .invalid : .need(min(decided, max(window.count + 1, 2 * window.count)))
    }

    /// Whether `frame` is a Xing/Info or VBRI frame (a file's header frame, not audio).
    private static func isInfoFrame(_ frame: UnsafeRawBufferPointer, header: MPEGFrameHeader) -> Bool {
        (header.layer == 3 && XingHeader(frame: frame, header: header) != nil) || VBRIHeader(frame: frame) != nil
    }

    /// Reads a Xing/Info or VBRI header in the stream's first frame into `state`; whether there
    /// was one (the frame is then not audio).
    private func readInfoFrame(
        _ frame: UnsafeRawBufferPointer, header: MPEGFrameHeader, offset: Int64, state: inout StreamState
    ) -> Bool {
        let spf = Int64(header.samplesPerFrame)
        let frameBytes = Int64(frame.count)
        if header.layer == 3, let xing = XingHeader(frame: frame, header: header) {
            state.set(\.encoderDelay, xing.encoderDelay)
            state.set(\.encoderPadding, xing.encoderPadding)
            guard let frames = xing.frameCount.map(Int64.init) else { return true }
            state.set(\.statedPacketCount, frames)
            state.headerPacketCount = frames
            state.headerFrameCount = frames * spf
            state.headerByteCount = xing.byteCount.map { max(Int64($0) - frameBytes, 0) }
            if !xing.isConstantBitRate, let bytes = state.headerByteCount, frames > 0 {
                state.headerBitRate = Double(bytes) * 8 * Double(header.sampleRate) / Double(frames * spf)
                if let toc = xing.tableOfContents, let total = xing.byteCount {
                    state.seekTable.tableMethod = .xingTable
                    state.seekTable.tableFrames = (0...100).map { frames * spf * Int64($0) / 100 }
                    state.seekTable.tableOffsets = (0...100).map {
                        offset + Int64(total) * Int64($0 == 100 ? 256 : Int(toc[$0])) / 256
                    }
                }
            }
            state.changed = true
            return true
        }
        guard let vbri = VBRIHeader(frame: frame) else { return false }
        let frames = Int64(vbri.frameCount)
        state.set(\.encoderDelay, vbri.delay)
        state.headerPacketCount = frames
        state.headerFrameCount = frames * spf
        state.headerByteCount = max(Int64(vbri.byteCount) - frameBytes, 0)
        if frames > 0 {
            state.headerBitRate = Double(vbri.byteCount - frame.count) * 8 * Double(header.sampleRate) / Double(frames * spf)
        }
        state.seekTable.tableMethod = .vbriTable
        var position = offset + frameBytes
        state.seekTable.tableFrames = [0]
        state.seekTable.tableOffsets = [position]
        for (i, bytes) in vbri.entryByteCounts.enumerated() {
            position += Int64(bytes)
            state.seekTable.tableFrames.append(Int64((i + 1) * vbri.framesPerEntry) * spf)
            state.seekTable.tableOffsets.append(position)
        }
        state.changed = true
        return true
    }
}
