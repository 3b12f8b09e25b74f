import Dispatch
import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// One connection of an `HLSAudioSource`: a thread of its own loads the playlist, follows it
/// (`HLSMediaFollower`) and plays its segments one after the other, each through an HTTP
/// connection whose bytes an `HLSSegmentReceiver` reads (`HLSSegmentReader`) and hands on as
/// one stream. The receiver is called by that thread or by the current segment's, never by
/// two at once; its `.pause` holds the segment's transfer (or the thread) until `resume()`.
final class HLSConnection: AudioSourceConnection {
    /// How a segment's fetch ended.
    enum SegmentOutcome: Sendable {
        /// Every byte was read.
        case ended
        /// The receiver said `.stop`.
        case stopped
        /// It failed; `retry`: fetching it again may help (an HTTP or network failure).
        case failed(AudioStreamerError, retry: Bool)
    }

    /// Why the thread ends early.
    enum Ending: Error {
        /// The receiver said `.stop`, or the connection was cancelled: nothing more is told.
        case stopped
        case failed(AudioStreamerError)
    }

    /// What the thread and the callers share.
    struct Shared {
        var isCancelled = false
        /// The transfer of the segment being played.
        var segment: (any AudioSourceConnection)?
        var segmentOutcome: SegmentOutcome?
        /// The thread's own delivery was paused by the receiver.
        var isPaused = false
        /// A resume came while no transfer was known: for the transfer being started (its
        /// first bytes may come, and be paused, before `open` returns it).
        var isResumePending = false
        /// The small fetch (playlist, key, map) the thread waits for.
        var fetchTransfer: HTTPTransfer?
        var fetched: Result<HTTPResponse, HTTPError>?
    }

    /// How many times a segment is fetched before the stream ends with its error.
    static let segmentAttempts = 4
    /// The wait before the first retry of a segment, in seconds (doubled at each).
    static let segmentBackoff = 0.25

    /// The bytes of a segment's start read for its first timestamp.
    static let headSize: Int64 = 16 << 10
    /// Segments fetched ahead of the one playing, at most (`HLSPrefetchPlan`).
    static let segmentsAhead = 3
    /// How often the thread looks at the fetches ahead while it waits, in seconds.
    static let prefetchTick = 0.25

    let setup: HLSAudioSource.Setup
    private let request: AudioSourceRequest
    private let receiver: any AudioSourceReceiver
    private let document: HLSAudioSource.Document?
    let shared = Mutex(Shared())
    /// Wakes the thread to look at `shared` again (extra signals are harmless).
    let wake = DispatchSemaphore(value: 0)
    // Unchecked: the thread and the current segment's receiver take turns (the thread waits
    // while a segment plays), so only one touches it at a time.
    /// The stream offset of the next byte given to the receiver.
    nonisolated(unsafe) private var offset: Int64 = 0
    /// The keys fetched so far, by URL (the thread's alone).
    nonisolated(unsafe) private var keys: [String: [UInt8]] = [:]
    /// The segments after the one playing, with what their fetches need (the thread's alone).
    nonisolated(unsafe) var upcoming: [(plan: HLSPrefetchPlan.Upcoming, url: String, range: HLSMediaPlaylist.ByteRange?)] = []
    let prefetcher: HLSPrefetcher

    init(setup: HLSAudioSource.Setup, request: AudioSourceRequest, receiver: any AudioSourceReceiver, document: HLSAudioSource.Document?) {
        self.setup = setup
        self.request = request
        self.receiver = receiver
        self.document = document
        prefetcher = HLSPrefetcher(setup: setup, wake: wake)
    }

    /// A connection to a stream that ended at `size`: its answer (that size, not live), then its end.
    static func ended(_ size: Int64, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        // On a thread of its own, as a source's calls are (never inside `open`).
        IOThread.start(name: "slipstream-hls") {
            let answer = AudioSourceAnswer(offset: size, totalSize: size, rangesSupported: false, isLive: false)
            if case .proceed = receiver.sourceOpened(answer) { receiver.sourceEnded(nil) }
        }
        return EndedConnection()
    }

    /// The connection to a stream that ended: nothing to resume or cancel.
    private final class EndedConnection: AudioSourceConnection {
        func resume() {}
        func cancel() {}
    }

    /// Starts the thread.
    func start() {
        IOThread.start(name: "slipstream-hls") { [self] in run() }
    }

    func resume() {
        let segment = shared.withLock { shared -> (any AudioSourceConnection)? in
            guard !shared.isPaused else {
                shared.isPaused = false
                return nil
            }
            if shared.segment == nil { shared.isResumePending = true }
            return shared.segment
        }
        if let segment { segment.resume() } else { wake.signal() }
    }

    func cancel() {
        let (segment, fetch) = shared.withLock { shared in
            shared.isCancelled = true
            return (shared.segment, shared.fetchTransfer)
        }
        segment?.cancel()
        fetch?.cancel()
        prefetcher.cancelAll()
        wake.signal()
    }

    // MARK: - The thread

    private func run() {
        defer { prefetcher.cancelAll() }
        do throws(Ending) {
            var (media, mediaURL, base) = try loadMediaPlaylist()
            // A playlist that keeps its segments can be played from any of them.
            let seeksByTime = !media.isLive || media.kind == .event
            var start: (sequence: Int64, time: AudioSourceAnswer.StartTime)?
            if seeksByTime, let time = request.time ?? Self.lateStart(of: media), let found = try locate(time, in: media, base: base) {
                start = (media.segments[found.index].sequence, .init(seconds: found.start, isExact: found.isExact))
                offset = request.time == nil ? 0 : request.offset
            }
            var answer = AudioSourceAnswer(offset: offset, totalSize: nil, rangesSupported: false, isLive: media.isLive)
            answer.seeksByTime = seeksByTime
            answer.startTime = start?.time
            answer.duration = media.isLive ? nil : media.duration
            guard case .proceed = receiver.sourceOpened(answer) else { return }
            var follower = HLSMediaFollower(startingAt: start?.sequence)
            follower.loaded(media, at: Self.now())
            var map: HLSMediaPlaylist.Map?
            while true {
                switch follower.next(at: Self.now()) {
                case .fetch(let segment):
                    if segment.map != map, let newMap = segment.map {
                        try deliver(try initializationSection(newMap, base: base, sequence: segment.sequence))
                        map = newMap
                    }
                    try planAhead(after: segment, in: follower.playlist ?? media, base: base)
                    try play(segment, base: base, isLive: media.isLive)
                case .reload(let time):
                    try sleep(until: time)
                    do throws(Ending) {
                        let (bytes, answeredFrom) = try fetchPlaylist(mediaURL)
                        guard case .media(let reloaded) = try Self.parse(bytes, url: mediaURL) else {
                            throw Ending.failed(
                                Self.error(.unsupportedFormat, "\(mediaURL): the HLS media playlist became a master playlist"))
                        }
                        (media, base) = (reloaded, answeredFrom)
                        follower.loaded(media, at: Self.now())
                    } catch {
                        // A live playlist that could not be read now may be read later: never the end.
                        guard case .failed = error else { throw error }
                        follower.reloadFailed(at: Self.now())
                    }
                case .end:
                    let size = offset
                    setup.endedAt.withLock { $0 = size }
                    receiver.sourceEnded(nil)
                    return
                }
            }
        } catch {
            guard case .failed(var failure) = error, !shared.withLock({ $0.isCancelled }) else { return }
            // The stream's URL, as other sources' errors name theirs (a segment is in the message).
            failure.url = setup.url
            receiver.sourceEnded(failure)
        }
    }

    /// The media playlist to follow: the one at the source's URL, or the one a master playlist
    /// there chooses; with the URL it is reloaded from and the URL its segments resolve against.
    private func loadMediaPlaylist() throws(Ending) -> (HLSMediaPlaylist, url: String, base: String) {
        let bytes: [UInt8], base: String
        if let document { (bytes, base) = (document.bytes, document.base) } else { (bytes, base) = try fetchPlaylist(setup.url) }
        switch try Self.parse(bytes, url: setup.url) {
        case .media(let media):
            return (media, setup.url, base)
        case .master(let master):
            let found: HLSVariantChoice.Choice?
            do throws(PlaylistError) {
                found = try HLSVariantChoice.choose(master, setup.selection)
            } catch {
                throw .failed(Self.error(.unsupportedFormat, "\(setup.url): \(error.message)"))
            }
            guard let choice = found else {
                throw .failed(Self.error(.noAudioData, "\(setup.url): the HLS master playlist lists no variant"))
            }
            let url = try resolve(choice.uri, base: base)
            let (bytes, mediaBase) = try fetchPlaylist(url)
            guard case .media(let media) = try Self.parse(bytes, url: url) else {
                throw .failed(Self.error(.unsupportedFormat, "\(url): the variant's playlist is a master playlist too"))
            }
            return (media, url, mediaBase)
        }
    }

    /// Plays `segment`: its bytes, read, given to the receiver; a failure of the transfer is
    /// tried again after a backoff, up to `segmentAttempts` times (a live stream then goes on
    /// with the next segment, a recorded one ends with the error).
    private func play(_ segment: HLSMediaPlaylist.Segment, base: String, isLive: Bool) throws(Ending) {
        let url = try resolve(segment.uri, base: base)
        let decryption = try decryption(segment.key, base: base, sequence: segment.sequence, url: url, what: "segment")
        var delivered = 0
        var attempt = 0
        var body = try prefetched(url, range: segment.byteRange)
        while true {
            attempt += 1
            shared.withLock { $0.isResumePending = false }
            let request = setup.request(url)
            let decryptor = try decryption.map { decryption throws(Ending) in try Self.decryptor(decryption, url: url) }
            // (Bytes fetched ahead were counted as they came.)
            let receiver = HLSSegmentReceiver(
                connection: self, reader: HLSSegmentReader(kind: segment.map == nil ? nil : .fragmentedMP4), decryptor: decryptor,
                range: segment.byteRange, alreadyDelivered: delivered, countsTraffic: body == nil)
            let transfer: any AudioSourceConnection
            if let body = body.take() {
                transfer = HLSBufferedTransfer.start(body, offset: segment.byteRange?.offset ?? 0, receiver: receiver)
            } else {
                setup.traffic.withLock { $0.requests += 1 }
                transfer = HTTPAudioSource(template: request, engine: setup.engine).open(
                    AudioSourceRequest(offset: segment.byteRange?.offset ?? 0, length: segment.byteRange?.length), receiver: receiver)
            }
            let (cancelled, resume) = shared.withLock { shared in
                shared.segment = transfer
                defer { shared.isResumePending = false }
                return (shared.isCancelled, shared.isResumePending)
            }
            if cancelled { transfer.cancel() }
            if resume { transfer.resume() }
            let outcome = try waitForSegment()
            delivered = receiver.delivered
            switch outcome {
            case .ended:
                var tail: [UInt8] = []
                do throws(HLSSegmentReader.Failure) {
                    tail = try receiver.finish()
                } catch {
                    throw .failed(Self.error(.unsupportedFormat, "\(url): \(error.message)"))
                }
                try deliver(tail)
                return
            case .stopped:
                throw .stopped
            case .failed(let error, let retry):
                guard retry, attempt < Self.segmentAttempts else {
                    if isLive, retry { return }
                    var failure = error
                    failure.message = "the HLS segment \(url) failed" + (retry ? " \(attempt) times" : "") + ": \(error.message)"
                    failure.isRetryable = false
                    throw .failed(failure)
                }
                try sleep(until: Self.now() + Self.segmentBackoff * Double(1 << (attempt - 1)))
            }
        }
    }

    /// Waits until the current segment's transfer ends, minding the fetches ahead; takes its outcome.
    private func waitForSegment() throws(Ending) -> SegmentOutcome {
        while true {
            let (outcome, cancelled) = shared.withLock { shared in
                defer {
                    if shared.segmentOutcome != nil {
                        shared.segmentOutcome = nil
                        shared.segment = nil
                    }
                }
                return (shared.segmentOutcome, shared.isCancelled)
            }
            if cancelled { throw .stopped }
            if let outcome { return outcome }
            prefetchAhead()
            try waitTick()
        }
    }

    // MARK: - Delivering

    /// Called by the segment's receiver: `bytes` go to the receiver at the next offset.
    func segmentDelivers(_ bytes: UnsafeRawBufferPointer) -> AudioSourceDecision {
        let decision = receiver.sourceReceived(bytes, at: offset)
        if case .proceed = decision { offset += Int64(bytes.count) }
        return decision
    }

    /// Called by the segment's receiver for the bytes of the segment it received.
    func segmentReceived(_ count: Int) {
        setup.traffic.withLock { $0.bytes += Int64(count) }
    }

    /// Called by the segment's receiver when its reader knows what the segment holds.
    func segmentKindFound(_ kind: HLSSegmentReader.Kind) {
        setup.segmentKind.withLock { $0 = $0 ?? kind }
    }

    /// Called by the segment's receiver once, when its transfer is over.
    func segmentEnded(_ outcome: SegmentOutcome) {
        shared.withLock { $0.segmentOutcome = outcome }
        wake.signal()
    }

    /// Gives `bytes` to the receiver from the thread, waiting while it pauses.
    private func deliver(_ bytes: [UInt8]) throws(Ending) {
        guard !bytes.isEmpty else { return }
        while true {
            shared.withLock { $0.isPaused = true }
            let decision = bytes.withUnsafeBytes { receiver.sourceReceived($0, at: offset) }
            switch decision {
            case .proceed:
                shared.withLock { $0.isPaused = false }
                offset += Int64(bytes.count)
                return
            case .stop:
                throw .stopped
            case .pause:
                while true {
                    let (paused, cancelled) = shared.withLock { ($0.isPaused, $0.isCancelled) }
                    if cancelled { throw .stopped }
                    if !paused { break }
                    wake.wait()
                }
            }
        }
    }

    // MARK: - Fetching

    /// The AES-128 key at `uri` (resolved against `base`), fetched once per URL.
    func key(_ uri: String, base: String) throws(Ending) -> [UInt8] {
        let url = try resolve(uri, base: base)
        if let key = keys[url] { return key }
        let key = try fetchWhole(url, range: nil, limit: 1024, what: "key").body
        guard key.count == 16 else {
            throw .failed(Self.error(.unsupportedFormat, "\(url): an AES-128 key is 16 bytes, this one has \(key.count)"))
        }
        keys[url] = key
        return key
    }

    /// A playlist's bytes and the URL that answered.
    private func fetchPlaylist(_ url: String) throws(Ending) -> ([UInt8], String) {
        let response = try fetchWhole(url, range: nil, limit: HLSPlaylistParser.maximumSize + 1, what: "playlist")
        return (response.body, response.head.effectiveURL.isEmpty ? url : response.head.effectiveURL)
    }

    /// The bytes of `map`, decrypted when a key applies; `sequence`: the first segment it
    /// initializes.
    private func initializationSection(_ map: HLSMediaPlaylist.Map, base: String, sequence: Int64) throws(Ending) -> [UInt8] {
        let url = try resolve(map.uri, base: base)
        let bytes = try fetchWhole(url, range: map.byteRange, limit: 16 << 20, what: "initialization section").body
        guard let decryption = try decryption(map.key, base: base, sequence: sequence, url: url, what: "initialization section")
        else { return bytes }
        let decryptor = try Self.decryptor(decryption, url: url)
        do throws(HLSDecryptor.Failure) {
            return try decryptor.decryptAll(bytes)
        } catch {
            throw .failed(Self.error(.unsupportedFormat, "\(url): \(error.message)"))
        }
    }

    /// The key and IV of what `key` encrypts (the `what` at `url`, for segment `sequence`); nil
    /// when nothing does. A method other than AES-128 is refused by name.
    private func decryption(_ key: HLSMediaPlaylist.Key?, base: String, sequence: Int64, url: String, what: String) throws(Ending)
        -> (key: [UInt8], iv: [UInt8])?
    {
        guard let key else { return nil }
        guard case .aes128 = key.method else {
            let method = if case .other(let name) = key.method { name } else { "" }
            throw .failed(Self.error(.unsupportedFormat, "\(url): the HLS \(what) is encrypted (\(method)), which is not played"))
        }
        return (try self.key(key.uri, base: base), key.iv(sequence: sequence))
    }

    /// A decryptor with `decryption`'s key and IV.
    private static func decryptor(_ decryption: (key: [UInt8], iv: [UInt8]), url: String) throws(Ending) -> HLSDecryptor {
        do throws(HLSDecryptor.Failure) {
            return try HLSDecryptor(key: decryption.key, iv: decryption.iv)
        } catch {
            throw .failed(Self.error(.unsupportedFormat, "\(url): \(error.message)"))
        }
    }

    /// A whole small response (at most `limit` bytes), from the thread; a range is cut out of
    /// a server's whole answer when it sends no 206.
    func fetchWhole(_ url: String, range: HLSMediaPlaylist.ByteRange?, limit: Int, what: String) throws(Ending) -> HTTPResponse {
        var request = setup.request(url)
        request.range = range.map { HTTPRequest.ByteRange(start: $0.offset, end: $0.offset + $0.length - 1) }
        let transfer = setup.engine.fetch(request, maxBodyBytes: limit) { [self] result in
            shared.withLock { $0.fetched = result }
            wake.signal()
        }
        if shared.withLock({ shared in
            shared.fetchTransfer = transfer
            return shared.isCancelled
        }) {
            transfer.cancel()
        }
        var result: Result<HTTPResponse, HTTPError>?
        while result == nil {
            let cancelled: Bool
            (result, cancelled) = shared.withLock { shared in
                defer { if shared.fetched != nil { (shared.fetched, shared.fetchTransfer) = (nil, nil) } }
                return (shared.fetched, shared.isCancelled)
            }
            if cancelled { throw .stopped }
            if result == nil { wake.wait() }
        }
        setup.traffic.withLock { traffic in
            traffic.requests += 1
            if case .success(let response) = result { traffic.bytes += Int64(response.body.count) }
        }
        switch result! {
        case .failure(let error):
            throw .failed(AudioStreamerError(error))
        case .success(var response):
            guard response.head.isSuccess else {
                throw .failed(
                    AudioStreamerError(
                        HTTPError(
                            .httpStatus, url: url, message: "the HLS \(what) got HTTP \(response.head.statusText)",
                            status: response.head.status)))
            }
            if let range, response.head.status == 200 {
                let start = Int(clamping: range.offset), end = Int(clamping: range.offset + range.length)
                response.body = Array(response.body[min(start, response.body.count)..<min(end, response.body.count)])
            }
            return response
        }
    }

    /// `uri` resolved against `base` (as a playlist's entries are).
    func resolve(_ uri: String, base: String) throws(Ending) -> String {
        do throws(PlaylistError) {
            let location = try PlaylistEntry(uri, title: nil).location(in: .url(base))
            guard case .url(let url) = location else { throw PlaylistError(.badEntry, "not an http(s) URL") }
            return url
        } catch {
            throw .failed(Self.error(.unsupportedFormat, "\(uri) in the HLS playlist \(base): \(error.message)"))
        }
    }

    /// Waits until `time` (seconds, as `now()`), or until cancelled.
    private func sleep(until time: Double) throws(Ending) {
        while true {
            if shared.withLock({ $0.isCancelled }) { throw .stopped }
            let remaining = time - Self.now()
            guard remaining > 0 else { return }
            _ = wake.wait(timeout: .now() + remaining)
        }
    }

    private static func parse(_ bytes: [UInt8], url: String) throws(Ending) -> HLSPlaylist {
        do throws(PlaylistError) {
            return try HLSPlaylistParser.parse(bytes)
        } catch {
            throw .failed(Self.error(.unsupportedFormat, "\(url): \(error.message)"))
        }
    }

    private static func error(_ code: AudioStreamerError.Code, _ message: String) -> AudioStreamerError {
        AudioStreamerError(code, message, retryable: false)
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        Double(MonotonicTime.now()) / 1e9
    }
}
