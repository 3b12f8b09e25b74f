import SlipstreamDownload
import Synchronization

/// Reads one HLS segment's transfer for an `HLSConnection`: keeps the bytes of its range (a
/// server that sends the whole resource is read past), decrypts them when they are encrypted
/// (`HLSDecryptor`), reads them (`HLSSegmentReader`) and
/// gives the audio to the connection's receiver, passing its `.pause` and `.stop` back to the
/// transfer. A paused delivery comes again from its first byte: what it gave was kept, and it
/// is read only once. The audio bytes an earlier attempt at the segment gave are not given again.
final class HLSSegmentReceiver: AudioSourceReceiver {
    /// What the transfer's calls change. The transfer calls a receiver one call at a time; the
    /// connection's thread calls `finish()` only after the transfer told its end. The lock is
    /// never held while the connection is called (its receiver's calls may lead anywhere).
    private struct State {
        var reader: HLSSegmentReader
        /// Decrypts the segment first, when it is encrypted.
        let decryptor: HLSDecryptor?
        /// The encrypted bytes of the piece being read, and its plain bytes, when decrypting.
        var cipher: [UInt8] = []
        var plain: [UInt8] = []
        /// Audio read but not yet taken by the receiver (lent out while it is handed on).
        var pending: [UInt8] = []
        /// The count of bytes at the start of the next delivery already read (before a pause).
        var readBeforePause = 0
        /// Audio bytes still to drop: an earlier attempt gave them.
        var toDrop: Int
        /// Audio bytes of the segment given so far, by every attempt.
        var delivered: Int
        var isOver = false
        /// The connection was told what the segment holds.
        var isKindTold = false

        /// Drops the audio an earlier attempt gave.
        mutating func drop() {
            guard toDrop > 0 else { return }
            let count = min(toDrop, pending.count)
            pending.removeFirst(count)
            toDrop -= count
        }
    }

    /// What a piece of the transfer gave.
    private struct Read {
        /// Bytes of the segment received (for the traffic count).
        var received = 0
        /// What the segment holds, found with this piece.
        var kind: HLSSegmentReader.Kind?
        /// The audio to hand on (the receiver's buffer, lent).
        var audio: [UInt8] = []
        /// The reader refused the bytes.
        var failure: HLSSegmentReader.Failure?
    }

    private let connection: HLSConnection
    /// The bytes of the resource that are the segment (nil: all of them).
    private let range: HLSMediaPlaylist.ByteRange?
    /// The bytes received are counted in the source's traffic (not those fetched ahead).
    private let countsTraffic: Bool
    private let state: Mutex<State>

    init(
        connection: HLSConnection, reader: sending HLSSegmentReader, decryptor: sending HLSDecryptor?,
        range: HLSMediaPlaylist.ByteRange?, alreadyDelivered: Int, countsTraffic: Bool
    ) {
        self.countsTraffic = countsTraffic
        self.connection = connection
        self.range = range
        var state = State(reader: reader, decryptor: decryptor, toDrop: alreadyDelivered, delivered: alreadyDelivered)
        state.pending.reserveCapacity(64 * 1024)
        self.state = Mutex(state)
    }

    /// What is left once the transfer ended: the reader's last bytes.
    func finish() throws(HLSSegmentReader.Failure) -> [UInt8] {
        try state.withLock { state throws(HLSSegmentReader.Failure) -> [UInt8] in
            if let decryptor = state.decryptor {
                do throws(HLSDecryptor.Failure) {
                    state.plain = try decryptor.finish()
                } catch {
                    throw HLSSegmentReader.Failure(message: error.message)
                }
                try state.reader.take(state.plain, into: &state.pending)
            }
            try state.reader.finish(into: &state.pending)
            state.drop()
            return state.pending
        }
    }

    func sourceOpened(_ answer: AudioSourceAnswer) -> AudioSourceDecision {
        .proceed
    }

    func sourceReceived(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AudioSourceDecision {
        let end = range.map { $0.offset + $0.length } ?? .max
        guard var read = read(bytes, at: offset, end: end) else { return .stop }
        if read.received > 0 { connection.segmentReceived(read.received) }
        if let kind = read.kind { connection.segmentKindFound(kind) }
        if let failure = read.failure {
            return over(.failed(AudioStreamerError(.unsupportedFormat, failure.message, retryable: false), retry: false))
        }
        if !read.audio.isEmpty {
            let decision = read.audio.withUnsafeBytes { connection.segmentDelivers($0) }
            let count = read.audio.count
            if case .proceed = decision { read.audio.removeAll(keepingCapacity: true) }
            state.withLock { state in
                switch decision {
                case .proceed:
                    state.delivered += count
                    state.pending = read.audio
                case .pause:
                    // Kept: given again, first, with the same bytes.
                    state.readBeforePause = bytes.count
                    state.pending = read.audio
                case .stop:
                    break
                }
            }
            switch decision {
            case .proceed: break
            case .pause: return .pause
            case .stop: return over(.stopped)
            }
        }
        // The range's last byte came: a server sending the whole resource is not read further.
        return offset + Int64(bytes.count) >= end ? over(.ended) : .proceed
    }

    /// Reads the bytes of `bytes` (at `offset`) that are the segment's, up to `end`; lends out
    /// the audio to hand on. Nil once the transfer is over.
    private func read(_ bytes: UnsafeRawBufferPointer, at offset: Int64, end: Int64) -> Read? {
        state.withLock { state -> Read? in
            guard !state.isOver else { return nil }
            var read = Read()
            let start = offset + Int64(min(state.readBeforePause, bytes.count))
            state.readBeforePause = 0
            let lower = max(start, range?.offset ?? 0), upper = min(offset + Int64(bytes.count), end)
            if lower < upper {
                read.received = countsTraffic ? Int(upper - lower) : 0
                do throws(HLSSegmentReader.Failure) {
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[Int(lower - offset)..<Int(upper - offset)])
                    if let decryptor = state.decryptor {
                        // Copied first: the decryptor, behind the lock, is given only the lock's own bytes.
                        var cipher: [UInt8] = [], plain: [UInt8] = []
                        swap(&cipher, &state.cipher)
                        swap(&plain, &state.plain)
                        cipher.removeAll(keepingCapacity: true)
                        cipher.append(contentsOf: piece)
                        plain.removeAll(keepingCapacity: true)
                        cipher.withUnsafeBytes { decryptor.decrypt($0, into: &plain) }
                        (state.cipher, state.plain) = (cipher, plain)
                        try state.reader.take(state.plain, into: &state.pending)
                    } else {
                        try state.reader.take(piece, into: &state.pending)
                    }
                } catch {
                    read.failure = error
                    return read
                }
                if !state.isKindTold, let kind = state.reader.kind {
                    state.isKindTold = true
                    read.kind = kind
                }
            }
            state.drop()
            if !state.pending.isEmpty { swap(&read.audio, &state.pending) }
            return read
        }
    }

    func sourceFound(_ metadata: AudioSourceMetadata) {}

    func sourceEnded(_ error: AudioStreamerError?) {
        let delivered = state.withLock { state -> Int? in
            guard !state.isOver else { return nil }
            state.isOver = true
            return state.delivered
        }
        guard let delivered else { return }
        connection.segmentEnded(error.map { .failed($0, retry: true) } ?? .ended, delivered: delivered)
    }

    /// Tells the connection the transfer is over, and stops it.
    private func over(_ outcome: HLSConnection.SegmentOutcome) -> AudioSourceDecision {
        let delivered = state.withLock { state in
            state.isOver = true
            return state.delivered
        }
        connection.segmentEnded(outcome, delivered: delivered)
        return .stop
    }
}
