/// Puts a Vorbis or Opus stream's packets back into Ogg pages for the recorder, since the
/// parser keeps packets without their pages. Each link of the recording is a logical stream of
/// its own, as Icecast chains one per song: a link starts at the first packet, at every new
/// format (a new link of the stream) and at every title, with its header pages (the format's
/// identification and setup headers, and a comment header of its own with the title as TITLE
/// and ARTIST), and ends with a last page. So a file split at a title starts with its headers,
/// and one file of several titles is a chained Ogg stream. Granule positions count the frames
/// the parser gave each packet, from 0 in each link (the first Vorbis packet of a link gives
/// none), and for Opus from the header's pre-skip, which the parser's frames leave out.
///
/// A plain value, used under the recorder's lock: the pages go into its `RecordingBuffer`,
/// each as one piece (dropped whole when the buffer is full: a gap). A link's headers go
/// before its first packet stored: while the buffer has no room for them, the packets are
/// dropped (they could not be decoded without them). Nothing is allocated per packet.
struct OggRecordingPager {
    private var writer: OggPageWriter?
    private var format: AudioFormat?
    private var granule: Int64 = 0
    private var nextSerial: UInt32
    /// The link's header pages, until they are stored (packets before are dropped).
    private var headers: [UInt8]?

    /// A pager whose links get serial numbers from `firstSerial` on.
    init(firstSerial: UInt32) {
        nextSerial = firstSerial
    }

    /// Whether the packets of `codec` are paged (Vorbis and Opus).
    static func pages(_ codec: AudioFormat.Codec) -> Bool {
        codec == .vorbis || codec == .opus
    }

    /// Pages a packet of `format` that decodes to `frameCount` frames and starts `title`, if
    /// it does, into `buffer`; true when anything was stored.
    mutating func add(
        _ packet: UnsafeRawBufferPointer, format: AudioFormat, frameCount: Int, title: StreamTitle?,
        into buffer: inout RecordingBuffer
    ) -> Bool {
        var stored = false
        if writer == nil || title != nil || format != self.format {
            stored = finish(into: &buffer)
            startLink(format, title: title)
        }
        let codec = format.codec
        if let headers {
            // The title (or the one of packets dropped before) goes with the headers.
            guard headers.withUnsafeBytes({ buffer.append($0, codec: codec, title: title) }) else {
                buffer.drop(packet.count)
                return stored
            }
            self.headers = nil
            stored = true
        }
        guard writer != nil else { return stored }
        granule += Int64(frameCount)
        writer!.add(packet, granule: granule) { page in
            stored = buffer.append(page, codec: codec, title: nil) || stored
        }
        return stored
    }

    /// Ends the link being written with its last page, into `buffer` (nothing when none of it
    /// was stored); true when it was stored.
    mutating func finish(into buffer: inout RecordingBuffer) -> Bool {
        defer { writer = nil }
        guard var writer, headers == nil, let codec = format?.codec else { return false }
        var stored = false
        writer.finish { stored = buffer.append($0, codec: codec, title: nil) }
        return stored
    }

    /// Starts a link of `format`: its writer and header pages (none for a format without the
    /// headers it needs).
    private mutating func startLink(_ format: AudioFormat, title: StreamTitle?) {
        self.format = format
        // The parser's frames of an Opus link leave out its pre-skip, which the granule
        // positions count.
        granule = format.codec == .opus ? Int64(format.magicCookie.withUnsafeBytes { OpusHead($0)?.preSkip ?? 0 }) : 0
        writer = nil
        headers = nil
        var writer = OggPageWriter(serial: nextSerial)
        nextSerial &+= 1
        var pages: [UInt8] = []
        let append = { (page: UnsafeRawBufferPointer) in pages.append(contentsOf: page) }
        let comment = VorbisCommentWriter.block(title)
        switch format.codec {
        case .vorbis:
            let cookie = format.magicCookie
            guard let ranges = XiphLacing.unlaceThree(cookie) else { return }
            cookie.withUnsafeBytes { writer.add(UnsafeRawBufferPointer(rebasing: $0[ranges[0]]), granule: 0, emit: append) }
            writer.flush(emit: append)
            (Array("\u{3}vorbis".utf8) + comment + [1]).withUnsafeBytes { writer.add($0, granule: 0, emit: append) }
            cookie.withUnsafeBytes { writer.add(UnsafeRawBufferPointer(rebasing: $0[ranges[2]]), granule: 0, emit: append) }
        default:
            format.magicCookie.withUnsafeBytes { writer.add($0, granule: 0, emit: append) }
            writer.flush(emit: append)
            (Array("OpusTags".utf8) + comment).withUnsafeBytes { writer.add($0, granule: 0, emit: append) }
        }
        writer.flush(emit: append)
        self.writer = writer
        headers = pages
    }
}
