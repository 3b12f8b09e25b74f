import SlipstreamDownload

/// Reads one HLS segment's transfer for an `HLSConnection`: keeps the bytes of its range (a
/// server that sends the whole resource is read past), decrypts them when they are encrypted
/// (`HLSDecryptor`), reads them (`HLSSegmentReader`) and
/// gives the audio to the connection's receiver, passing its `.pause` and `.stop` back to the
/// transfer. A paused delivery comes again from its first byte: what it gave was kept, and it
/// is read only once. The audio bytes an earlier attempt at the segment gave are not given again.
final class HLSSegmentReceiver: AudioSourceReceiver {
    private let connection: HLSConnection
    /// The bytes of the resource that are the segment (nil: all of them).
    private let range: HLSMediaPlaylist.ByteRange?
    // Unchecked: the transfer calls a receiver one call at a time; the connection's thread
    // reads `delivered` and calls `finish()` only after the transfer told its end.
    nonisolated(unsafe) private var reader: HLSSegmentReader
    /// Decrypts the segment first, when it is encrypted.
    nonisolated(unsafe) private let decryptor: HLSDecryptor?
    /// The plain bytes of the piece being read, when decrypting.
    nonisolated(unsafe) private var plain: [UInt8] = []
    /// Audio read but not yet taken by the receiver.
    nonisolated(unsafe) private var pending: [UInt8] = []
    /// The count of bytes at the start of the next delivery already read (before a pause).
    nonisolated(unsafe) private var readBeforePause = 0
    /// Audio bytes still to drop: an earlier attempt gave them.
    nonisolated(unsafe) private var toDrop: Int
    /// Audio bytes of the segment given so far, by every attempt.
    nonisolated(unsafe) private(set) var delivered: Int
    nonisolated(unsafe) private var isOver = false
    /// The bytes received are counted in the source's traffic (not those fetched ahead).
    private let countsTraffic: Bool
    /// The connection was told what the segment holds.
    nonisolated(unsafe) private var isKindTold = false

    init(
        connection: HLSConnection, reader: HLSSegmentReader, decryptor: HLSDecryptor?, range: HLSMediaPlaylist.ByteRange?,
        alreadyDelivered: Int, countsTraffic: Bool
    ) {
        self.countsTraffic = countsTraffic
        self.connection = connection
        self.reader = reader
        self.decryptor = decryptor
        self.range = range
        toDrop = alreadyDelivered
        delivered = alreadyDelivered
        pending.reserveCapacity(64 * 1024)
    }

    /// What is left once the transfer ended: the reader's last bytes.
    func finish() throws(HLSSegmentReader.Failure) -> [UInt8] {
        if let decryptor {
            do throws(HLSDecryptor.Failure) {
                plain = try decryptor.finish()
            } catch {
                throw HLSSegmentReader.Failure(message: error.message)
            }
            try reader.take(plain, into: &pending)
        }
        try reader.finish(into: &pending)
        drop()
        return pending
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        guard !isOver else { return .stop }
        let start = offset + Int64(min(readBeforePause, bytes.count))
        readBeforePause = 0
        let first = range?.offset ?? 0
        let end = range.map { $0.offset + $0.length } ?? .max
        let lower = max(start, first), upper = min(offset + Int64(bytes.count), end)
        if lower < upper {
            if countsTraffic { connection.segmentReceived(Int(upper - lower)) }
            do throws(HLSSegmentReader.Failure) {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[Int(lower - offset)..<Int(upper - offset)])
                if let decryptor {
                    plain.removeAll(keepingCapacity: true)
                    decryptor.decrypt(piece, into: &plain)
                    try reader.take(plain, into: &pending)
                } else {
                    try reader.take(piece, into: &pending)
                }
            } catch {
                return over(.failed(AudioStreamerError(.unsupportedFormat, error.message, retryable: false), retry: false))
            }
            if !isKindTold, let kind = reader.kind {
                isKindTold = true
                connection.segmentKindFound(kind)
            }
        }
        drop()
        if !pending.isEmpty {
            let decision = pending.withUnsafeBytes { connection.segmentDelivers($0) }
            switch decision {
            case .proceed:
                delivered += pending.count
                pending.removeAll(keepingCapacity: true)
            case .pause:
                readBeforePause = bytes.count
                return .pause
            case .stop:
                return over(.stopped)
            }
        }
        // The range's last byte came: a server sending the whole resource is not read further.
        return offset + Int64(bytes.count) >= end ? over(.ended) : .proceed
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {}

    func sourceEnded(_ error: AudioStreamerError?) {
        guard !isOver else { return }
        isOver = true
        connection.segmentEnded(error.map { .failed($0, retry: true) } ?? .ended)
    }

    /// Tells the connection the transfer is over, and stops it.
    private func over(_ outcome: HLSConnection.SegmentOutcome) -> AudioSourceDecision {
        isOver = true
        connection.segmentEnded(outcome)
        return .stop
    }

    /// Drops the audio an earlier attempt gave.
    private func drop() {
        guard toDrop > 0 else { return }
        let count = min(toDrop, pending.count)
        pending.removeFirst(count)
        toDrop -= count
    }
}
