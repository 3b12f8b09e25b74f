import SlipstreamDownload

/// Seeking: the first timestamps of segments, read for `HLSFetchMachine` to place a connection
/// opened at a time (or an EVENT playlist joined late) by them (`HLSSeekLocation`).
extension HLSConnection {
    /// The first timestamp of `part`'s segment (`HLSSegmentReader.firstTimestamp`), read from its
    /// first `headSize` bytes (decrypted when they are encrypted) once per source; nil for fMP4
    /// (the parser reads its decode times) and where the head holds none or cannot be read (the
    /// durations then say where the segment starts; its own fetch tells its failure).
    func firstTimestamp(of part: HLSFetchMachine.Part) -> Int64? {
        let segment = part.segment
        guard segment.map == nil else { return nil }
        let name = part.key
        if let known = setup.timestamps.withLock({ $0[name] }) { return known }
        let range = HLSMediaPlaylist.ByteRange(
            offset: segment.byteRange?.offset ?? 0, length: min(segment.byteRange?.length ?? Self.headSize, Self.headSize))
        var timestamp: Int64?
        do throws(AudioStreamerError) {
            var head = try fetchWhole(part.url, range: range, limit: Int(clamping: range.offset + range.length), what: "segment").body
            if let key = segment.key {
                guard case .aes128 = key.method else { return nil }
                let keyBytes = try self.key(key.uri, base: part.base)
                guard let decryptor = try? HLSDecryptor(key: keyBytes, iv: key.iv(sequence: segment.sequence)) else { return nil }
                var plain: [UInt8] = []
                head.withUnsafeBytes { decryptor.decrypt($0, into: &plain) }
                head = plain
            }
            var reader = HLSSegmentReader()
            var audio: [UInt8] = []
            try? reader.take(head, into: &audio)
            timestamp = reader.firstTimestamp
        } catch {
            // Not known (a cancelled fetch included: the machine stops at its next input).
            if isOver { return nil }
        }
        setup.timestamps.withLock { timestamps in
            if timestamps.count >= HLSAudioSource.Setup.keptTimestamps { timestamps.removeAll() }
            timestamps[name] = timestamp
        }
        return timestamp
    }
}
