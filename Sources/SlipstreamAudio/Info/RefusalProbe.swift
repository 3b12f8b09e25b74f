import Synchronization

/// Parses the first bytes of a read as they arrive (`AudioSource.read`'s `endsEarly`), so that a
/// stream the parser refuses by its first bytes (a container it cannot play yet) ends the read
/// at once rather than after a whole chunk, which a live stream sending slowly may take long to
/// fill, or never fill. Stops looking once the parser has found a format.
final class RefusalProbe: Sendable {
    /// The parser, while it is still choosing the format.
    private let parser = Mutex<AudioStreamParser?>(AudioStreamParser())

    /// Feeds `bytes` (the next of the read); true once the parser has refused the stream.
    func refuses(_ bytes: UnsafeRawBufferPointer) -> Bool {
        parser.withLock { parser in
            guard var current = parser else { return false }
            var sink = DiscardingSink()
            do throws(AudioParserError) {
                try current.parse(bytes, into: &sink)
            } catch {
                return true
            }
            if case .sniffing = current.stage { parser = current } else { parser = nil }
            return false
        }
    }
}
