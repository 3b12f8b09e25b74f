import Dispatch
import Glibc
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// The segments an `HLSConnection` fetches ahead (as its `HLSFetchMachine` plans them), each
/// whole into memory on the engine's connections, one or two fetches per segment (a race: the
/// first to finish wins, the other is cancelled). The connection starts them and takes their
/// bytes; each segment's end is told once. A stream played while an `HLSDownload` keeps it
/// takes its segments from the download instead (`HLSKeptResources`: the download fetches the
/// one asked for first), and fetches itself only those the download cannot give.
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
        if let kept = setup.kept { return take(key, url: url, range: range, from: kept, ended: ended) }
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

    /// Takes `key`'s segment from the download that keeps the stream: its file, once the
    /// download has it, read on a Dispatch thread (a range of it cut out).
    private func take(
        _ key: String, url: String, range: HLSMediaPlaylist.ByteRange?, from kept: HLSKeptResources,
        ended: @escaping @Sendable () -> Void
    ) {
        entries.withLock { entries in entries[key, default: Entry()].started += 1 }
        kept.take(url) { [self] answer in
            DispatchQueue.global().async { [self] in
                let result = answer.mapError { AudioStreamerError(.network, $0.message, url: url) }.flatMap { path in
                    Self.read(path, range: range, url: url)
                }
                if finished(key, result, counted: false) { ended() }
            }
        }
    }

    /// The bytes of the file at `path` (`range` of them), at most `maximumSegmentSize`.
    private static func read(_ path: String, range: HLSMediaPlaylist.ByteRange?, url: String) -> Result<[UInt8], AudioStreamerError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(AudioStreamerError(.file, "\(path): \(String(cString: strerror(errno)))", path: path))
        }
        defer { close(descriptor) }
        let start = range?.offset ?? 0
        // (Whole, one byte more than the most taken, to tell a file too large.)
        let length = Int(clamping: range?.length ?? Int64(maximumSegmentSize) + 1)
        guard range == nil || length <= maximumSegmentSize else {
            return .failure(AudioStreamerError(.unsupportedFormat, "\(url): the HLS segment is too large to fetch ahead", retryable: false))
        }
        var bytes = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, length - filled, off_t(start) + off_t(filled))
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                return .failure(AudioStreamerError(.file, "\(path): \(String(cString: strerror(errno)))", path: path))
            }
            if count == 0 { break }
            filled += count
        }
        guard range == nil || filled == length else {
            return .failure(
                AudioStreamerError(.network, "\(url): the HLS download holds \(filled) bytes of the segment's \(length)", url: url))
        }
        if range == nil, filled > maximumSegmentSize {
            return .failure(AudioStreamerError(.unsupportedFormat, "\(url): the HLS segment is too large to fetch ahead", retryable: false))
        }
        bytes.removeLast(length - filled)
        return .success(bytes)
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
    private func finished(_ key: String, _ result: Result<[UInt8], AudioStreamerError>, counted: Bool = true) -> Bool {
        let losers = entries.withLock { entries -> [HTTPTransfer]? in
            guard var entry = entries[key], entry.result == nil else { return nil }
            if case .failure = result, entry.failures + 1 < entry.started {
                // The other connection may still bring it.
                entry.failures += 1
                entries[key] = entry
                return nil
            }
            if counted, case .success(let body) = result { setup.traffic.withLock { $0.bytes += Int64(body.count) } }
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
