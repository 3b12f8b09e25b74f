import SlipstreamDownload

/// Seeking: where a connection opened at a time (or an EVENT playlist joined late) starts, placed
/// by the segments' first timestamps where they have them.
extension HLSConnection {
    /// Where an EVENT playlist not yet ended is joined (near its live end, as `HLSMediaFollower`
    /// starts it): the start of that segment by the durations, when it is not the first; nil
    /// for another playlist.
    static func lateStart(of media: HLSMediaPlaylist) -> Double? {
        guard media.isLive, media.kind == .event else { return nil }
        let first = HLSMediaFollower.start(of: media)
        guard let index = media.segments.firstIndex(where: { $0.sequence == first }), index > 0 else { return nil }
        return media.segments[..<index].reduce(0) { $0 + $1.duration }
    }

    /// The segment of `media` holding `time` (`HLSSeekLocation`), its start exact where the
    /// segments carry timestamps.
    func locate(_ time: Double, in media: HLSMediaPlaylist, base: String) throws(Ending) -> HLSSeekLocation.Found? {
        try HLSSeekLocation.locate(time, in: media) { index throws(Ending) in
            try firstTimestamp(of: media.segments[index], base: base)
        }
    }

    /// The first timestamp of `segment` (`HLSSegmentReader.firstTimestamp`), read from its first
    /// `headSize` bytes (decrypted when they are encrypted) once per source; nil for fMP4 (the
    /// parser reads its decode times) and where the head holds none or cannot be read.
    private func firstTimestamp(of segment: HLSMediaPlaylist.Segment, base: String) throws(Ending) -> Int64? {
        guard segment.map == nil else { return nil }
        let url = try resolve(segment.uri, base: base)
        let name = Self.fetchName(url, segment.byteRange)
        if let known = setup.timestamps.withLock({ $0[name] }) { return known }
        let range = HLSMediaPlaylist.ByteRange(
            offset: segment.byteRange?.offset ?? 0, length: min(segment.byteRange?.length ?? Self.headSize, Self.headSize))
        var timestamp: Int64?
        do throws(Ending) {
            var head = try fetchWhole(url, range: range, limit: Int(clamping: range.offset + range.length), what: "segment").body
            if let key = segment.key {
                guard case .aes128 = key.method else { return nil }
                let keyBytes = try self.key(key.uri, base: base)
                guard let decryptor = try? HLSDecryptor(key: keyBytes, iv: key.iv(sequence: segment.sequence)) else {
                    return nil
                }
                var plain: [UInt8] = []
                head.withUnsafeBytes { decryptor.decrypt($0, into: &plain) }
                head = plain
            }
            var reader = HLSSegmentReader()
            var audio: [UInt8] = []
            try? reader.take(head, into: &audio)
            timestamp = reader.firstTimestamp
        } catch {
            // Not known: the durations say where the segment starts (its own fetch tells its failure).
            guard case .failed = error else { throw error }
        }
        setup.timestamps.withLock { timestamps in
            if timestamps.count >= HLSAudioSource.Setup.keptTimestamps { timestamps.removeAll() }
            timestamps[name] = timestamp
        }
        return timestamp
    }
}
