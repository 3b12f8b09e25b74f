/// Finds and follows the frames of a stream of self-describing frames. A sync is accepted only
/// when the header after the frame agrees with it (so album art and junk cannot fake one);
/// once in sync, each frame must start where the last ended with an agreeing header, or sync is
/// lost and the bytes up to the next possible header or tag are dropped as junk.
package struct FrameSync<Header: SyncFrameHeader>: Sendable {
    /// The header the stream's format was taken from.
    package private(set) var reference: Header?
    /// The previous frame ended exactly at the window's front.
    private var isSynced = false

    /// How big a frame is, as far as its header and the bytes after it tell.
    package enum Size {
        /// This many bytes, header included.
        case bytes(Int)
        /// Cannot tell before the window holds this many bytes.
        case need(Int)
        /// Not a usable frame.
        case invalid
    }

    /// What is at the window's front.
    package enum Found {
        /// A frame of `size` bytes; `isNewFormat` when its header became the new reference.
        case frame(Header, size: Int, isNewFormat: Bool)
        /// Anything else: junk to skip, or more bytes needed.
        case step(ParseStep)
    }

    /// Forgets the position: the next frame must be confirmed by the one after it.
    package mutating func loseSync() {
        isSynced = false
    }

    /// Looks at the window's front; `size` gives a header's frame size.
    package mutating func next(
        _ window: UnsafeRawBufferPointer, isFinal: Bool, state: inout StreamState,
        size: (Header, UnsafeRawBufferPointer) -> Size
    ) -> Found {
        let length = Header.headerLength
        guard window.count >= length else { return isFinal ? junk(window.count, &state) : .step(.need(length)) }
        guard let header = Header(window, at: 0) else { return lose(window, &state) }
        // A header of another format where the last frame ended: the format changes at this
        // frame boundary (files joined one after the other), or it is junk that looks like a
        // header. Either way it must be confirmed by the header after it, as at a new sync; its
        // first byte is not dropped, so a change loses no frame.
        if isSynced, reference?.agrees(with: header) != true { isSynced = false }
        let frameSize: Int
        switch size(header, window) {
        case .bytes(let bytes): frameSize = bytes
        case .need(let bytes): return isFinal ? lose(window, &state) : .step(.need(bytes))
        case .invalid: return lose(window, &state)
        }
        if isSynced {
            guard window.count >= frameSize else { return isFinal ? junk(window.count, &state) : .step(.need(frameSize)) }
        } else if window.count >= frameSize + length {
            guard let next = Header(window, at: frameSize), header.agrees(with: next) else { return lose(window, &state) }
        } else {
            // The last frame of a stream already known may end it unconfirmed.
            let endsKnownStream = isFinal && window.count == frameSize && reference?.agrees(with: header) == true
            guard endsKnownStream else { return isFinal ? lose(window, &state) : .step(.need(frameSize + length)) }
        }
        isSynced = true
        let isNewFormat = reference?.agrees(with: header) != true
        if isNewFormat { reference = header }
        return .frame(header, size: frameSize, isNewFormat: isNewFormat)
    }

    /// Loses sync at the front: skips to the next byte where a header or a tag may start.
    private mutating func lose(_ window: UnsafeRawBufferPointer, _ state: inout StreamState) -> Found {
        isSynced = false
        var i = 1
        while i < window.count, !Header.mayStart(window, at: i), !TagReader.mayStart(window, at: i) { i += 1 }
        return junk(i, &state)
    }

    private func junk(_ count: Int, _ state: inout StreamState) -> Found {
        state.properties.junkByteCount += Int64(count)
        return .step(.skip(Int64(count)))
    }
}
