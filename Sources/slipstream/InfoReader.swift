import SlipstreamAudio

/// Reads as little of a source as describing its audio needs: the head in chunks, only until
/// the parser has found the first audio packet (so a Xing/VBRI header or WAV `fmt ` has been
/// read), jumping over what the parser would only skip (a large ID3v2 picture) where the source
/// can seek; then the last bytes, for the tags that trail the audio.
enum InfoReader {
    /// The size of each read of the head, in bytes (for a source that cannot seek, reads grow
    /// by doubling, each from the start).
    static let chunkSize = 256 << 10
    /// The size of each read when every packet is to be counted (`--exact`), in bytes.
    static let exactChunkSize = 1 << 20
    /// Bytes read for the head at most before giving up on finding audio.
    static let maximumHeadBytes: Int64 = 32 << 20
    /// The last bytes read first for trailing tags; more only when their footers ask for it.
    static let initialTailSize = 4096
    /// Bytes read for trailing tags at most.
    static let maximumTailSize = 1 << 20

    /// Describes the audio of `source`, named `name` (whose extension is a hint to the parser);
    /// with `exact`, reads the whole stream so that every total is an exact count.
    static func describe(_ source: inout some InfoSource, name: String, exact: Bool) async throws(CommandError) -> AudioStreamInfo {
        var parser: AudioStreamParser?
        var offset: Int64 = 0
        var hasWholeStream = false
        while true {
            let count = source.canSeek ? (exact ? exactChunkSize : chunkSize) : max(chunkSize, Int(offset))
            let bytes = try await source.read(at: offset, count: count)
            var current = parser ?? AudioStreamParser(hints: AudioStreamHints(
                contentType: source.summary.contentType, fileExtension: fileExtension(of: name),
                totalByteCount: source.summary.size))
            hasWholeStream = bytes.count < count
            try audio(name) { () throws(AudioParserError) in
                _ = try current.parse(bytes)
                if source.canSeek { current.skipUnread() }
                offset = current.nextByteOffset
                if let size = source.summary.size, offset >= size { hasWholeStream = true }
                if hasWholeStream { _ = try current.finish() }
            }
            parser = current
            if hasWholeStream { break }
            if !exact, current.properties.dataOffset != nil || source.summary.bytesRead >= maximumHeadBytes { break }
        }
        let tail = hasWholeStream ? nil : try await readTail(&source)
        return try audio(name) { () throws(AudioParserError) in try AudioStreamInfo(parser: parser!, tail: tail) }
    }

    /// The last bytes of a source that can seek and whose size is known, as many as the
    /// trailing tags take (up to `maximumTailSize`); `nil` otherwise.
    private static func readTail(_ source: inout some InfoSource) async throws(CommandError) -> [UInt8]? {
        guard source.canSeek, let size = source.summary.size, size > 0 else { return nil }
        var count = Int(min(Int64(initialTailSize), size))
        while true {
            let tail = try await source.read(at: size - Int64(count), count: count)
            let needed = AudioStreamInfo.trailingTagLength(in: tail)
            guard needed > count, needed <= maximumTailSize, Int64(needed) <= size else { return tail }
            count = needed
        }
    }

    /// Runs `body`, turning a parser error into the "not audio" failure naming `name`.
    private static func audio<T>(_ name: String, _ body: () throws(AudioParserError) -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            throw CommandError(status: .notAudio, message: "\(name): \(error)")
        }
    }

    /// The extension of the last path segment of a file or URL (query and fragment left out),
    /// without the dot: `mp3` for `http://host/a/song.mp3?x=1`.
    static func fileExtension(of name: String) -> String? {
        let path = name.prefix { $0 != "?" && $0 != "#" }
        let segment = path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...]
        guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return nil }
        let ext = segment[segment.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }
}
