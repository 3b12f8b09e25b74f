#if canImport(Glibc)
import Glibc
#endif

/// The native FLAC stage of `AudioStreamParser`: the `fLaC` marker, the metadata blocks
/// (STREAMINFO for the format and exact length, SEEKTABLE for exact seek points,
/// VORBIS_COMMENT for the tags; PICTURE, PADDING and the rest skipped without being held), then
/// the frames, each a packet.
///
/// A frame states no length: it runs to the next frame header. A frame is taken once the bytes
/// after it start a valid header (its CRC-8 right, its rate, channels and sample size those of
/// STREAMINFO) and the bytes up to there pass the frame's CRC-16; the last frame of the stream
/// ends where its CRC-16 last passed. The scan goes on where it stopped as bytes arrive, so a
/// frame costs one pass whatever the split (the CRC-16 brought up to date only behind a
/// possible header, in long runs). Frames carry their own position (frame or sample
/// number), so packet times are exact after a seek too. Anything else between frames is junk,
/// skipped to the next possible sync.
package struct FLACParser: Sendable {
    private enum Phase: Hashable, Sendable {
        case marker
        case blockHeader
        /// Inside SEEKTABLE: `remaining` bytes of 18-byte points.
        case seekTable(remaining: Int, isLast: Bool)
        /// Inside VORBIS_COMMENT: `remaining` bytes.
        case comment(remaining: Int, isLast: Bool)
        case frames
        /// After a discontinuity before STREAMINFO was read: nothing can be understood.
        case ended
    }

    /// A frame being delimited: its header, and the scan for its end so far.
    private struct Scan: Hashable, Sendable {
        package var header: FLACFrameHeader
        /// Bytes of the frame scanned, and their CRC-16.
        package var scanned: Int
        package var crc: UInt16
    }

    /// VORBIS_COMMENT is read in pieces of this many bytes at most.
    private static let commentPieceSize = 4096

    private var phase = Phase.marker
    private var info: FLACStreamInfo?
    private var comment = VorbisComment()
    private var scan: Scan?
    /// SEEKTABLE points: first sample and offset from the first frame.
    private var pointFrames: [Int64] = []
    private var pointOffsets: [Int64] = []
    /// The STREAMINFO block's body, the format's magic cookie.
    private var cookie: [UInt8] = []
    /// The format has been told.
    private var isAnnounced = false

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        switch phase {
        case .marker:
            guard window.count >= 4 else { return isFinal ? .skip(Int64(window.count)) : .need(4) }
            phase = .blockHeader
            return .skip(4)
        case .blockHeader:
            return try blockHeader(window, offset: offset, isFinal: isFinal, state: &state)
        case .seekTable(let remaining, let isLast):
            guard remaining >= 18 else { return endBlock(skip: remaining, isLast: isLast, at: offset, state: &state) }
            guard window.count >= 18 else { return isFinal ? .skip(Int64(window.count)) : .need(18) }
            let frame = Int64(bitPattern: window.bigEndian(at: 0, count: 8))
            let relative = Int64(bitPattern: window.bigEndian(at: 8, count: 8))
            // Placeholders are all ones; points must ascend, and lie within what a file can hold
            // (an offset past 2^60 bytes is nonsense, and would overflow added to the audio's start).
            if frame >= 0, relative >= 0, relative < 1 << 60, frame > pointFrames.last ?? -1, relative >= pointOffsets.last ?? 0 {
                if pointFrames.count == AudioSeekTable.maximumSeekPoints { thinSeekPoints() }
                pointFrames.append(frame)
                pointOffsets.append(relative)
            }
            phase = .seekTable(remaining: remaining - 18, isLast: isLast)
            return .skip(18)
        case .comment(let remaining, let isLast):
            // Read in pieces of a fixed size, whatever the split, so that the tags change at
            // the same steps (and the sink hears the same events) for any split.
            let take = min(remaining, Self.commentPieceSize)
            guard window.count >= take else { return isFinal ? .skip(Int64(window.count)) : .need(take) }
            let before = state.properties.tags
            let used = comment.read(UnsafeRawBufferPointer(rebasing: window[..<take]), into: &state.properties.tags)
            if state.properties.tags != before { state.changed = true }
            guard used == take, !comment.isComplete, remaining > take else {
                return endBlock(skip: remaining, isLast: isLast, at: offset, state: &state)
            }
            phase = .comment(remaining: remaining - take, isLast: isLast)
            return .skip(Int64(take))
        case .frames:
            guard let info else { throw AudioParserError(code: .malformed, message: "FLAC frames before STREAMINFO", offset: offset) }
            return frame(window, offset: offset, info: info, isFinal: isFinal, state: &state)
        case .ended:
            return .skip(Int64(window.count))
        }
    }

    /// After a discontinuity to `offset`: parsing starts over from the marker if `offset` is 0,
    /// else it looks for the next frame (nothing more is emitted if STREAMINFO is not known).
    package mutating func resynchronise(at offset: Int64) {
        guard offset != 0 else {
            self = FLACParser()
            return
        }
        scan = nil
        phase = info == nil ? .ended : .frames
    }

    /// A metadata block's 4-byte header (and STREAMINFO whole).
    private mutating func blockHeader(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard window.count >= 4 else { return isFinal ? .skip(Int64(window.count)) : .need(4) }
        let isLast = window[0] & 0x80 != 0, type = window[0] & 0x7F
        let length = Int(window.bigEndian(at: 1, count: 3))
        guard type == 0 || info != nil else {
            throw AudioParserError(code: .malformed, message: "FLAC metadata block \(type) before STREAMINFO", offset: offset)
        }
        switch type {
        case 0:
            guard info == nil, length == FLACStreamInfo.size else {
                throw AudioParserError(code: .malformed, message: "FLAC STREAMINFO of \(length) bytes, or a second one", offset: offset)
            }
            guard window.count >= 4 + length else { return isFinal ? .skip(Int64(window.count)) : .need(4 + length) }
            let body = UnsafeRawBufferPointer(rebasing: window[4..<(4 + length)])
            guard let info = FLACStreamInfo(body) else {
                throw AudioParserError(code: .malformed, message: "FLAC STREAMINFO with fields out of range", offset: offset)
            }
            self.info = info
            cookie = Array(body)
            return endBlock(skip: 4 + length, isLast: isLast, at: offset, state: &state)
        case 3:
            phase = .seekTable(remaining: length, isLast: isLast)
            return .skip(4)
        case 4:
            comment = VorbisComment()
            phase = .comment(remaining: length, isLast: isLast)
            return .skip(4)
        case 127:
            throw AudioParserError(code: .malformed, message: "FLAC metadata block of the invalid type 127", offset: offset)
        default:
            return endBlock(skip: 4 + length, isLast: isLast, at: offset, state: &state)
        }
    }

    /// Skips the rest of a block (`skip` bytes from `offset`) and goes on to the next block, or
    /// to the frames after the last.
    private mutating func endBlock(skip: Int, isLast: Bool, at offset: Int64, state: inout StreamState) -> ParseStep {
        phase = isLast ? .frames : .blockHeader
        if isLast { announce(firstFrameAt: offset + Int64(skip), state: &state) }
        return .skip(Int64(skip))
    }

    /// Tells the format, the exact length and the seek points (relative to the first frame at
    /// `start`), once: after the metadata, so that a player, which seeks as soon as it knows the
    /// format, finds the seek points there; or at the first frame after a discontinuity that
    /// skipped the rest of the metadata.
    private mutating func announce(firstFrameAt start: Int64, state: inout StreamState) {
        guard let info, !isAnnounced else { return }
        isAnnounced = true
        state.setFormat(info.format(cookie: cookie))
        if info.totalFrames > 0 { state.headerFrameCount = info.totalFrames }
        state.set(\.isSeekableByTime, true)
        state.changed = true
        state.seekTable.dataOffset = start
        state.seekTable.tableMethod = .seekPoints
        state.seekTable.tableFrames = pointFrames
        state.seekTable.tableOffsets = pointOffsets.map { start + $0 }
        (pointFrames, pointOffsets) = ([], [])
        // Without seek points a seek's first probe is estimated from the whole audio's mean
        // (the network side then finds the frame by probing: `SeekSearch`).
        if info.totalFrames > 0 { state.seekTable.headerFrameCount = info.totalFrames }
        if info.totalFrames > 0, let total = state.hints.totalByteCount, total > start {
            state.headerBitRate = Double(total - start) * 8 * Double(info.sampleRate) / Double(info.totalFrames)
        }
    }

    /// Halves the seek points kept, keeping every other one.
    private mutating func thinSeekPoints() {
        pointFrames = pointFrames.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        pointOffsets = pointOffsets.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    }

    /// A frame at the window's front: its header, then the scan for its end.
    private mutating func frame(
        _ window: UnsafeRawBufferPointer, offset: Int64, info: FLACStreamInfo, isFinal: Bool, state: inout StreamState
    ) -> ParseStep {
        if scan == nil {
            switch FLACFrameHeader.read(window) {
            case .need(let count):
                return isFinal ? junk(window.count, &state) : .need(count)
            case .invalid:
                return loseSync(window, &state)
            case .header(let header):
                guard header.fits(info) else { return loseSync(window, &state) }
                let crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: window[..<header.size]))
                scan = Scan(header: header, scanned: header.size, crc: crc)
            }
        }
        guard var scan else { return .need(1) }
        let header = scan.header
        let limit = Self.maximumFrameSize(header, info)
        var i = scan.scanned, crc = scan.crc
        // Never past the largest frame the header allows, however many bytes the window holds:
        // what is found must not depend on how the bytes were split.
        let end = min(window.count, limit + 1)
        // The frame ends where a header that fits follows and the bytes up to it pass the
        // CRC-16. A header can only start at a 0xFF: each is looked at, and only behind one
        // that starts a header is the CRC-16 brought up to date (from `i`, in one long run).
        var candidate = i
        while candidate < end {
            let sync = window.firstIndex(of: 0xFF, in: candidate..<end)
            guard sync < end else { break }
            candidate = sync + 1
            let next = FLACFrameHeader.read(window, at: sync)
            switch next {
            case .header(let found) where found.fits(info): break
            case .need where !isFinal: break
            default: continue
            }
            crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: window[i..<sync]), from: crc)
            i = sync
            guard crc == 0 else { continue }
            guard case .header = next else {
                (scan.scanned, scan.crc) = (i, crc)
                self.scan = scan
                return .need(i + FLACFrameHeader.maximumSize)
            }
            return take(size: i, at: offset, header, info, &state)
        }
        crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: window[i..<end]), from: crc)
        i = end
        guard isFinal || i > limit else {
            (scan.scanned, scan.crc) = (i, crc)
            self.scan = scan
            return .need(min(i + 16 * 1024, limit + 1 + FLACFrameHeader.maximumSize))
        }
        // No next header within reach: the stream's last frame, if it ends the samples
        // STREAMINFO counts where its CRC-16 last passed (a frame cut short, whose CRC-16 may
        // pass by chance on the way, does not); else junk.
        let isLast = info.totalFrames == 0 || header.firstFrame(info) + Int64(header.blockSize) == info.totalFrames
        if isLast, let end = Self.lastPass(window, header: header, upTo: min(window.count, limit)) {
            return take(size: end, at: offset, header, info, &state)
        }
        return loseSync(window, &state)
    }

    /// The last length, from the header's end up to `upTo`, at which the CRC-16 of the frame at
    /// the window's front passes (byte by byte: only the stream's last frame needs it).
    private static func lastPass(_ window: UnsafeRawBufferPointer, header: FLACFrameHeader, upTo: Int) -> Int? {
        var crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: window[..<header.size]))
        var last: Int?
        for length in header.size...max(header.size, upTo) {
            if crc == 0 { last = length }
            guard length < window.count else { break }
            crc = FLACChecksum.crc16(UnsafeRawBufferPointer(rebasing: window[length..<length + 1]), from: crc)
        }
        return last
    }

    /// The frame of `size` bytes at the front (at `offset`) is a packet.
    private mutating func take(
        size: Int, at offset: Int64, _ header: FLACFrameHeader, _ info: FLACStreamInfo, _ state: inout StreamState
    ) -> ParseStep {
        announce(firstFrameAt: offset, state: &state)
        scan = nil
        state.nextFrame = header.firstFrame(info)
        return .packet(size: size, frames: header.blockSize)
    }

    /// No frame at the front: skips to the next byte where a sync may start.
    private mutating func loseSync(_ window: UnsafeRawBufferPointer, _ state: inout StreamState) -> ParseStep {
        scan = nil
        var i = 1
        while i < window.count, window[i] != 0xFF { i += 1 }
        return junk(i, &state)
    }

    private func junk(_ count: Int, _ state: inout StreamState) -> ParseStep {
        state.properties.junkByteCount += Int64(count)
        return .skip(Int64(count))
    }

    /// The largest a frame of `header` can be: every subframe verbatim (a side channel one bit
    /// wider), each with its header, wasted-bits count and padding, then the CRC-16.
    private static func maximumFrameSize(_ header: FLACFrameHeader, _ info: FLACStreamInfo) -> Int {
        let bits = (header.bitsPerSample == 0 ? info.bitsPerSample : header.bitsPerSample) + 1
        return header.size + header.channels * (2 + bits / 8 + (header.blockSize * bits + 7) / 8) + 2
    }
}

extension UnsafeRawBufferPointer {
    /// The index of the first `byte` in `range`, or `range.upperBound` when there is none
    /// (`memchr`: the frame scan's way to its next candidate header).
    fileprivate func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int {
        guard let base = baseAddress, !range.isEmpty else { return range.upperBound }
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return range.upperBound }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
