/// Chooses a stream's format from its bytes (after any leading tags, which the parser reads
/// first): WAV by its RIFF/RIFX header, MP4 by `ftyp`, FLAC by `fLaC`, AIFF by `FORM`, CAF by
/// `caff`, Ogg by its first page's capture pattern, MPEG audio or ADTS by a frame confirmed by
/// the next one. A container that cannot be played yet (Matroska, ...: `UnsupportedContainer`) is
/// refused by its first bytes, before any frame sync is looked for. Junk before the first frame
/// is skipped up to a limit; past it, or at the end of a stream with nothing found, the error
/// names what the bytes look like.
package struct FormatSniffer: Sendable {
    /// A format the bytes were found to hold.
    package enum Format {
        case mpeg, adts, wav, mp4, flac, aiff, caf, ogg
    }

    /// What to do next.
    package enum Outcome {
        case step(ParseStep)
        case found(Format)
    }

    /// Junk allowed before the first frame (bytes).
    package static let maximumJunk = 256 * 1024

    /// The first bytes looked at, for the error message.
    private var firstBytes: [UInt8]?
    /// Where they were.
    private var firstOffset: Int64 = 0
    private var junk = 0

    /// Looks at the window's front, at stream `offset`.
    package mutating func step(
        _ window: UnsafeRawBufferPointer, offset: Int64, isFinal: Bool, hints: AudioStreamHints
    ) throws(AudioParserError) -> Outcome {
        let sample = 16
        if firstBytes == nil {
            guard window.count >= sample || isFinal else { return .step(.need(sample)) }
            firstBytes = Array(window.prefix(sample))
            firstOffset = offset
        }
        guard !window.isEmpty else { throw failure(hints) }
        if offset == firstOffset {
            if window.starts(with: "ftyp", at: 4) { return .found(.mp4) }
            switch UnsupportedContainer.match(window, isFinal: isFinal) {
            case .none: break
            case .need(let count): return .step(.need(count))
            case .found(let name): throw Self.unsupported(name, at: offset, hints)
            }
        }
        if window.starts(with: "fLaC") { return .found(.flac) }
        if window.starts(with: "caff") { return .found(.caf) }
        if window.starts(with: "FORM") {
            guard window.count >= 12 || isFinal else { return .step(.need(12)) }
            if window.starts(with: "AIFF", at: 8) || window.starts(with: "AIFC", at: 8) { return .found(.aiff) }
        }
        if window.starts(with: "OggS") { return .found(.ogg) }
        if window.hasPrefix("RIFF") || window.hasPrefix("RIFX") {
            guard window.count >= 12 || isFinal else { return .step(.need(12)) }
            if window.starts(with: "WAVE", at: 8) { return .found(.wav) }
        }
        var scratch = StreamState(hints: hints)
        var mpeg = FrameSync<MPEGFrameHeader>()
        switch mpeg.next(
            window, isFinal: isFinal, state: &scratch,
            size: {
                MPEGAudioParser.frameSize($0, $1, freeFormatSize: nil, isFinal: isFinal)
            })
        {
        case .frame: return .found(.mpeg)
        case .step(.need(let count)): return .step(.need(count))
        case .step: break
        }
        var adts = FrameSync<ADTSHeader>()
        switch adts.next(window, isFinal: isFinal, state: &scratch, size: { header, _ in .bytes(header.frameLength) }) {
        case .frame: return .found(.adts)
        case .step(.need(let count)): return .step(.need(count))
        case .step: break
        }
        var i = 1
        while i < window.count, !Self.mayStart(window, at: i) { i += 1 }
        junk += i
        guard junk <= Self.maximumJunk else { throw failure(hints) }
        return .step(.skip(Int64(i)))
    }

    /// Whether a format's header or a tag may start at `index`.
    private static func mayStart(_ window: UnsafeRawBufferPointer, at index: Int) -> Bool {
        MPEGFrameHeader.mayStart(window, at: index) || ADTSHeader.mayStart(window, at: index)
            || TagReader.mayStart(window, at: index) || window.hasPrefix("RIFF", at: index)
            || window.hasPrefix("RIFX", at: index) || window.hasPrefix("fLaC", at: index)
            || window.hasPrefix("FORM", at: index) || window.hasPrefix("caff", at: index) || window.hasPrefix("OggS", at: index)
    }

    /// The error for a stream in which no supported format was found.
    package func failure(_ hints: AudioStreamHints) -> AudioParserError {
        let bytes = firstBytes ?? []
        var message = "no MP3/MPEG audio, AAC (ADTS or MP4), FLAC, Ogg, WAV, AIFF or CAF found"
        if junk > Self.maximumJunk { message += " in the first \(Self.maximumJunk) bytes" }
        message += bytes.isEmpty ? ": there are no bytes besides tags" : "; it starts with \(Self.describe(bytes))"
        if let type = hints.contentType { message += "; served as \(type)" }
        return AudioParserError(code: .unrecognisedFormat, message: message, offset: firstOffset)
    }

    /// The error for a container found at the stream's start that cannot be played yet.
    private static func unsupported(_ name: String, at offset: Int64, _ hints: AudioStreamHints) -> AudioParserError {
        var message = "\(name) cannot be played yet (MP3/MPEG audio, AAC in ADTS or MP4, FLAC, Ogg, WAV, AIFF and CAF can)"
        if let type = hints.contentType { message += "; served as \(type)" }
        return AudioParserError(code: .unsupportedFormat, message: message, offset: offset)
    }

    /// Names a file type by its first bytes, with the bytes in hex (the containers
    /// `UnsupportedContainer` knows never get here: they were refused at once).
    package static func describe(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(12), as: UTF8.self)
        let kinds: [(Bool, String)] = [
            (text.hasPrefix("RIFF"), "a RIFF file that is not WAVE"),
            (text.hasPrefix("#EXTM3U"), "an M3U playlist"),
            (text.lowercased().hasPrefix("[playlist]"), "a PLS playlist"),
            (text.hasPrefix("<"), "HTML or XML"),
            (text.hasPrefix("{"), "JSON"),
            (text.hasPrefix("MThd"), "MIDI"),
            (text.hasPrefix("ICY "), "a SHOUTcast response head"),
        ]
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
        return (kinds.first { $0.0 }.map { "\($0.1): " } ?? "") + hex
    }
}
