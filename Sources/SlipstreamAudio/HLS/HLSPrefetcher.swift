import SlipstreamHTTP
import Synchronization

/// The segments an `HLSConnection` fetches ahead (as its `HLSFetchMachine` plans them), each
/// whole into memory on the engine's connections, one or two fetches per segment (a race: the
/// first to finish wins, the other is cancelled). The connection starts them and takes their
/// bytes; each segment's end is told once.
final class HLSPrefetcher: Sendable {
    /// A segment's fetch.
    private struct Entry {
        var transfers: [HTTPTransfer] = []
        /// Fetches started, and those that failed while another went on.
        var started = 0
        var failures = 0
        var result: Result<[UInt8], AudioStreamerError>?
    }

    /// The most bytes a segment fetched ahead may have: a larger one fails its fetch (and is
    /// streamed in its turn).
    static let maximumSegmentSize = 32 << 20

    private let setup: HLSAudioSource.Setup
    private let entries = Mutex<[String: Entry]>([:])

    /// A prefetcher fetching as `setup` says.
    init(setup: HLSAudioSource.Setup) {
        self.setup = setup
    }

    /// Starts fetching `url` (`range` of it) under `key`; a second time: races it. `ended` is
    /// called (on the engine's thread) when the segment's fetch ended, once for both.
    func fetch(_ key: String, url: String, range: HLSMediaPlaylist.ByteRange?, ended: @escaping @Sendable () -> Void) {
        var request = setup.request(url)
        request.range = range.map { HTTPRequest.ByteRange(start: $0.offset, end: $0.offset + $0.length - 1) }
        setup.traffic.withLock { $0.requests += 1 }
        // The entry counts the fetch before it can end.
        entries.withLock { entries in entries[key, default: Entry()].started += 1 }
        let limit = Int(clamping: range?.offset ?? 0) + Self.maximumSegmentSize + 1
        let transfer = setup.engine.fetch(request, maxBodyBytes: limit) { [self] response in
            let result = response.mapError { AudioStreamerError($0) }.flatMap { Self.body(of: $0, url: url, range: range) }
            if finished(key, result) { ended() }
        }
        // A fetch whose segment was forgotten or already fetched meanwhile is not needed.
        let isNeeded = entries.withLock { entries in
            guard entries[key]?.result == nil, entries[key] != nil else { return false }
            entries[key]!.transfers.append(transfer)
            return true
        }
        if !isNeeded { transfer.cancel() }
    }

    /// The bytes (or the failure) of `key`'s fetch once it ended, forgetting it; nil before.
    func take(_ key: String) -> Result<[UInt8], AudioStreamerError>? {
        entries.withLock { entries in
            guard let result = entries[key]?.result else { return nil }
            entries[key] = nil
            return result
        }
    }

    /// Cancels `key`'s fetch and forgets it.
    func cancel(_ key: String) {
        entries.withLock { $0.removeValue(forKey: key) }?.transfers.forEach { $0.cancel() }
    }

    /// Cancels every fetch.
    func cancelAll() {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.flatMap(\.transfers)
        }
        all.forEach { $0.cancel() }
    }

    /// A fetch of `key` ended with `result`: the first end counts (a failure only once every
    /// fetch of it failed); the other fetch is cancelled. Returns whether this end counted.
    private func finished(_ key: String, _ result: Result<[UInt8], AudioStreamerError>) -> Bool {
        let losers = entries.withLock { entries -> [HTTPTransfer]? in
            guard var entry = entries[key], entry.result == nil else { return nil }
            if case .failure = result, entry.failures + 1 < entry.started {
                // The other connection may still bring it.
                entry.failures += 1
                entries[key] = entry
                return nil
            }
            if case .success(let body) = result { setup.traffic.withLock { $0.bytes += Int64(body.count) } }
            entry.result = result
            let losers = entry.transfers
            entry.transfers = []
            entries[key] = entry
            return losers
        }
        losers?.forEach { $0.cancel() }
        return losers != nil
    }

    /// The segment's bytes in `response`: its range cut out of a whole answer (a server that
    /// sends no 206), or the failure its status says.
    private static func body(of response: HTTPResponse, url: String, range: HLSMediaPlaylist.ByteRange?) -> Result<
        [UInt8], AudioStreamerError
    > {
        guard response.head.isSuccess else {
            return .failure(
                AudioStreamerError(
                    HTTPError(
                        .httpStatus, url: url, message: "the HLS segment got HTTP \(response.head.statusText)", status: response.head.status
                    )))
        }
        guard response.body.count <= maximumSegmentSize + Int(clamping: range?.offset ?? 0) else {
            return .failure(AudioStreamerError(.unsupportedFormat, "\(url): the HLS segment is too large to fetch ahead", retryable: false))
        }
        guard let range, response.head.status == 200 else { return .success(response.body) }
        let start = Int(clamping: range.offset), end = Int(clamping: range.offset + range.length)
        return .success(Array(response.body[min(start, response.body.count)..<min(end, response.body.count)]))
    }
}
