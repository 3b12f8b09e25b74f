/// The Ogg stage of `AudioStreamParser`: pages (capture pattern, CRC-32, lacing), packets that
/// span pages, and the links of a chained stream (each beginning-of-stream page after a link's
/// data starts a new link, with its own headers and format). Of the streams of a link it follows
/// the first that is Vorbis, Opus or FLAC. Each page is checked whole before any of its packets
/// is used; a damaged page is dropped and the next capture pattern looked for.
///
/// Held memory: a page (at most 65,307 bytes, held by `AudioStreamParser`) and one packet that
/// spans pages (at most `maximumPacketSize`; a comment header is kept only up to
/// `maximumCommentSize`, enough for its text tags, never a picture).
package struct OggParser: Sendable {
    private enum Phase: Hashable, Sendable {
        /// Looking for the next capture pattern (after a damaged page or a discontinuity).
        case capture
        /// At a page's first byte.
        case page
        /// Inside a checked page, at its segment `segment` (the page's header is in `page`).
        case body
    }

    /// The largest packet assembled from several pages (bytes).
    package static let maximumPacketSize = 1 << 20
    /// The part of a comment header that is kept (bytes).
    package static let maximumCommentSize = 64 << 10

    private var phase = Phase.page
    private var page: OggPageHeader?
    /// The page's lacing values.
    private var lacing: [UInt8] = []
    private var segment = 0
    /// The first packet of the page continues one that was lost: it is dropped.
    private var dropsFirstPacket = false
    /// A packet gathered from several pages, its first byte's offset, and whether one is being
    /// gathered; `truncated` once bytes past `maximumCommentSize` were dropped from a comment.
    private var assembly: [UInt8] = []
    private var assemblyOffset: Int64 = 0
    private var isAssembling = false
    /// The link followed, and the links seen so far.
    private var link: OggLink?
    private var linkCount = 0
    /// The codec of the first stream of the stream's first link that is not followed, for the refusal.
    private var refusedCodec: String?

    /// Handles the bytes at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        switch phase {
        case .capture:
            var i = 0
            while i < window.count, !window.hasPrefix("OggS", at: i) { i += 1 }
            if i == 0 {
                guard window.count >= 4 || isFinal else { return .need(4) }
                phase = .page
                return try step(window, offset: offset, isFinal: isFinal, state: &state)
            }
            state.properties.junkByteCount += Int64(i)
            return .skip(Int64(i))
        case .page:
            return try readPage(window, offset: offset, isFinal: isFinal, state: &state)
        case .body:
            return try readPacket(window, offset: offset, isFinal: isFinal, state: &state)
        }
    }

    /// The bytes of the packet gathered from several pages (valid after `.assembledPacket`).
    package func withAssembledPacket<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        assembly.withUnsafeBytes(body)
    }

    /// The frames of the followed link's whole stream, from the granule position of its last
    /// page in `tail` (a stream's last bytes): the page must end exactly where the tail ends
    /// (its checksum checked when it lies whole in the tail). `nil` when no such page is found,
    /// or the stream is chained (its last page is not the followed link's).
    package func framesAtEnd(ofTail tail: UnsafeRawBufferPointer) -> Int64? {
        guard let link, !tail.isEmpty else { return nil }
        var start = tail.count - OggPageHeader.size
        while start >= 0 {
            defer { start -= 1 }
            let rest = UnsafeRawBufferPointer(rebasing: tail[start...])
            guard let header = OggPageHeader(rest), header.serialNumber == link.serialNumber, rest.count >= header.headerSize else {
                continue
            }
            var size = header.headerSize
            for i in OggPageHeader.size..<header.headerSize { size += Int(rest[i]) }
            guard size == rest.count, OggCRC.checksum(ofPage: rest) == header.checksum, header.granulePosition >= 0 else { continue }
            return link.frames(atGranule: header.granulePosition)
        }
        return nil
    }

    /// After a discontinuity to `offset`: at 0, parsing starts over (the same links, formats and
    /// tags again); elsewhere the next page is looked for by its capture pattern, a packet being
    /// gathered is dropped, and positions are unknown until a page states one.
    package mutating func resynchronise(at offset: Int64) {
        guard offset > 0 else {
            self = OggParser()
            return
        }
        phase = .capture
        isAssembling = false
        dropsFirstPacket = false
        link?.resynchronise()
    }

    /// At a page's first byte: checks the whole page, then starts its body, or skips it.
    private mutating func readPage(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard window.count >= OggPageHeader.size else { return isFinal ? try cutShort(window, offset) : .need(OggPageHeader.size) }
        guard let header = OggPageHeader(window) else { return resync(at: offset, state: &state) }
        guard window.count >= header.headerSize else { return isFinal ? try cutShort(window, offset) : .need(header.headerSize) }
        var size = header.headerSize
        for i in OggPageHeader.size..<header.headerSize { size += Int(window[i]) }
        guard window.count >= size else { return isFinal ? try cutShort(window, offset) : .need(size) }
        let bytes = UnsafeRawBufferPointer(rebasing: window[..<size])
        guard OggCRC.checksum(ofPage: bytes) == header.checksum else { return resync(at: offset, state: &state) }
        lacing.removeAll(keepingCapacity: true)
        lacing.append(contentsOf: window[OggPageHeader.size..<header.headerSize])
        if header.isFirst, link?.hasSeenDataPage ?? true {
            return try startLink(header, page: bytes, offset: offset, state: &state)
        }
        guard let current = link else {
            // Not a first page, and no stream followed: nothing here can be played.
            let name = refusedCodec.map { "Ogg \($0)" } ?? "an Ogg stream without its first page"
            throw AudioParserError(
                code: .unsupportedFormat, message: "\(name) cannot be played (Ogg Vorbis, Opus and FLAC can)", offset: offset)
        }
        guard header.serialNumber == current.serialNumber else { return .skip(Int64(size)) }
        if !header.isFirst { link?.hasSeenDataPage = true }
        if header.isContinuation != isAssembling {
            dropsFirstPacket = header.isContinuation
            isAssembling = false
        }
        // (Not from the last page: its granule position may cut its last packet short.)
        if current.position == nil, header.granulePosition >= 0, !header.isLast {
            placePacketsAfterResync(header, page: UnsafeRawBufferPointer(rebasing: window[header.headerSize..<size]), state: &state)
        }
        page = header
        segment = 0
        phase = .body
        return .skip(Int64(header.headerSize))
    }

    /// A first page: the first stream of a new link whose codec is known becomes the one
    /// followed (its first packet, alone on the page, is its identification header); another
    /// stream's first page is skipped.
    private mutating func startLink(
        _ header: OggPageHeader, page bytes: UnsafeRawBufferPointer, offset: Int64, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        let length = Int(lacing.first ?? 0)
        let isLoneFirstPacket = lacing.count == 1 && length < 255
        let packet = UnsafeRawBufferPointer(rebasing: bytes[header.headerSize..<header.headerSize + (isLoneFirstPacket ? length : 0)])
        guard isLoneFirstPacket,
            let next = OggLink(identification: packet, serialNumber: header.serialNumber, number: linkCount + 1)
        else {
            let name = OggLink.codecName(of: packet)
            if linkCount == 0, let name, ["Vorbis", "Opus", "FLAC"].contains(name) {
                throw AudioParserError(
                    code: .malformed, message: "Ogg \(name) stream with a bad identification header", offset: offset)
            }
            if linkCount == 0, refusedCodec == nil { refusedCodec = name ?? "stream of an unknown codec" }
            return .skip(Int64(bytes.count))
        }
        linkCount += 1
        link = next
        isAssembling = false
        if linkCount > 1 {
            // The tags are the new link's own.
            state.set(\.tags, AudioTags())
            state.set(\.linkTitle, nil)
        }
        return .skip(Int64(bytes.count))
    }

    /// Inside a page's body: the next packet, or its part on this page.
    private mutating func readPacket(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, state: inout StreamState
    ) throws(AudioParserError) -> ParseStep {
        guard let page, segment < lacing.count else {
            phase = .page
            return .skip(0)
        }
        var end = segment, length = 0, completes = false
        while end < lacing.count, !completes {
            length += Int(lacing[end])
            completes = lacing[end] < 255
            end += 1
        }
        if window.count < length {
            guard isFinal else { return .need(length) }
            // A page cut short by the stream's end: its packets are lost.
            segment = lacing.count
            return .skip(Int64(window.count))
        }
        let available = UnsafeRawBufferPointer(rebasing: window[..<length])
        segment = end
        if dropsFirstPacket {
            dropsFirstPacket = false
            return .skip(Int64(length))
        }
        guard completes else {
            if !isAssembling {
                isAssembling = true
                assemblyOffset = offset
                assembly.removeAll(keepingCapacity: true)
            }
            try gather(available, offset: offset)
            return .skip(Int64(length))
        }
        let isLastOnPage = !lacing[end...].contains { $0 < 255 }
        if isAssembling {
            try gather(available, offset: offset)
            isAssembling = false
            let frames = try packetFound(
                assembly, offset: assemblyOffset, page: page, isLastOnPage: isLastOnPage, state: &state)
            return frames.map { .assembledPacket(offset: assemblyOffset, frames: $0, skip: length) } ?? .skip(Int64(length))
        }
        let frames = try packetFound(available, offset: offset, page: page, isLastOnPage: isLastOnPage, state: &state)
        guard let frames, !available.isEmpty else { return .skip(Int64(length)) }
        return .packet(size: available.count, frames: frames)
    }

    /// The first page with a granule position after a discontinuity: the packets that end on
    /// it end at that position, so the first of them starts at it less their frames. Sets the
    /// link's position there, and the stream frame of the next packet (for the first link only:
    /// a later link's place in the whole stream depends on the links before it).
    private mutating func placePacketsAfterResync(_ header: OggPageHeader, page body: UnsafeRawBufferPointer, state: inout StreamState) {
        guard var current = link, !current.isReadingHeaders else { return }
        var frames = 0, start = 0, segment = 0, isFirst = true
        var probe = current
        while segment < lacing.count {
            var length = 0, completes = false
            while segment < lacing.count, !completes {
                length += Int(lacing[segment])
                completes = lacing[segment] < 255
                segment += 1
            }
            // A packet begun on an earlier page is dropped, as is one going on to the next.
            if completes, !(isFirst && dropsFirstPacket), start + length <= body.count {
                frames += probe.naturalFrames(of: UnsafeRawBufferPointer(rebasing: body[start..<start + length]))
            }
            isFirst = false
            start += length
        }
        let position = header.granulePosition - Int64(frames)
        guard position >= 0 else { return }
        current.position = position
        link = current
        if current.number == 1, state.nextFrame == nil { state.nextFrame = current.frames(atGranule: position) }
    }

    /// Adds a packet's part to the packet being gathered.
    private mutating func gather(_ part: UnsafeRawBufferPointer, offset: Int64) throws(AudioParserError) {
        // A comment header (or another metadata block) is kept only up to the limit.
        let isComment = link?.mayCutNextHeader ?? false
        let limit = isComment ? Self.maximumCommentSize : Self.maximumPacketSize
        guard assembly.count + part.count <= limit else {
            guard isComment else {
                throw AudioParserError(
                    code: .malformed, message: "Ogg packet of more than \(Self.maximumPacketSize) bytes", offset: assemblyOffset)
            }
            assembly.append(contentsOf: part.prefix(max(limit - assembly.count, 0)))
            return
        }
        assembly.append(contentsOf: part)
    }

    /// A whole packet of the page's stream: a header is read; an audio packet's frames are
    /// returned (`nil` for a header).
    private mutating func packetFound(
        _ packet: some Collection<UInt8>, offset: Int64, page: OggPageHeader, isLastOnPage: Bool, state: inout StreamState
    ) throws(AudioParserError) -> Int? {
        guard var current = link else { return nil }
        let result = packet.withContiguousStorageIfAvailable { raw in
            Result { () throws(AudioParserError) -> Int? in
                let bytes = UnsafeRawBufferPointer(raw)
                guard current.isReadingHeaders else {
                    return current.frames(
                        of: bytes, pageGranule: page.granulePosition, isLastOnPage: isLastOnPage, isEndOfStream: page.isLast)
                }
                let found = try current.readHeader(bytes, offset: offset)
                if let comment = found.comment {
                    readComment(UnsafeRawBufferPointer(rebasing: bytes[comment]), state: &state)
                }
                if let format = found.format {
                    state.setFormat(format)
                    // A chained stream's later links cannot be placed after a jump: no seeking there.
                    state.set(\.isSeekableByTime, current.number == 1)
                    // FLAC states its length in STREAMINFO, exact from the head, as in native FLAC.
                    if case .flac(let flac) = current.codec, current.number == 1,
                        let info = flac.block.withUnsafeBytes({ FLACStreamInfo($0) }), info.totalFrames > 0
                    {
                        state.headerFrameCount = info.totalFrames
                    }
                }
                return nil
            }
        }
        link = current
        return try result!.get()
    }

    /// The link's comment header (a Vorbis comment block, perhaps cut short): its tags, and
    /// the link's title from them.
    private func readComment(_ comment: UnsafeRawBufferPointer, state: inout StreamState) {
        var reader = VorbisComment()
        let before = state.properties.tags
        _ = reader.read(comment, into: &state.properties.tags)
        if state.properties.tags != before { state.changed = true }
        let tags = state.properties.tags
        guard let title = tags.title else { return }
        state.set(\.linkTitle, StreamTitle(title: tags.artist.map { "\($0) - \(title)" } ?? title))
    }

    /// A page cut short by the stream's end: dropped, unless no link has started yet.
    private func cutShort(_ window: UnsafeRawBufferPointer, _ offset: Int64) throws(AudioParserError) -> ParseStep {
        guard linkCount > 0 else {
            throw AudioParserError(code: .malformed, message: "an Ogg stream that ends inside its first page", offset: offset)
        }
        return .skip(Int64(window.count))
    }

    /// Drops a byte that does not start a good page and looks for the next capture pattern.
    private mutating func resync(at offset: Int64, state: inout StreamState) -> ParseStep {
        phase = .capture
        isAssembling = false
        state.properties.junkByteCount += 1
        return .skip(1)
    }
}
