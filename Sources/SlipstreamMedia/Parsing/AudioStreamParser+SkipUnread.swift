extension AudioStreamParser {
    /// Lets a reader that can seek its source (a file, a server with ranges) jump over bytes
    /// the parser would only drop, such as a 10 MB picture in an ID3v2 tag: the parser takes
    /// those bytes as skipped without their being fed, and the next bytes it expects come
    /// from `nextByteOffset`. The stream stays continuous (totals can still be counted).
    /// Does nothing when the parser is not skipping.
    public mutating func skipUnread() {
        position += skipRemaining
        skipRemaining = 0
    }

    /// Lets a reader that can seek its source jump over the rest of audio whose packets follow
    /// from sizes alone: uncompressed audio (WAV, AIFF, CAF), and MP4's samples, which its index
    /// delimits. They are counted as if parsed, to the audio's end or the source's
    /// (`AudioStreamHints.totalByteCount`), and the next bytes the parser expects come from
    /// `nextByteOffset`, after them. Totals counted this way are the ones a parse of every byte
    /// gives; no packet is told to the sink. Does nothing outside such audio (or when neither
    /// end is known).
    public mutating func skipAudioCountedBySize() {
        guard skipRemaining == 0 else { return }
        let end = state.hints.totalByteCount
        var count: PCMDataChunk.Count?
        switch stage {
        case .wav(var parser):
            count = parser.countRestOfAudio(from: position, sourceEnd: end)
            stage = .wav(parser)
        case .aiff(var parser):
            count = parser.countRestOfAudio(from: position, sourceEnd: end)
            stage = .aiff(parser)
        case .caf(var parser):
            count = parser.countRestOfAudio(from: position, sourceEnd: end)
            stage = .caf(parser)
        case .mp4(var parser):
            count = parser.countRestOfAudio(from: position, sourceEnd: end)
            stage = .mp4(parser)
        default:
            return
        }
        // Nothing counted (the next bytes are not audio counted by size): held bytes stay.
        guard let count, count.used > 0 else { return }
        // Held bytes are the start of the next packet, counted now.
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        needed = 1
        state.recordPackets(count, from: position)
        position += count.used
    }
}
