/// The decisions of an HLS connection as a pure value: inputs in (a playlist loaded or failed, a
/// segment's head read, a delivery taken or paused, a segment's transfer started, ended or
/// failed, a fetch ahead ended, resume, stop, the time), actions out (for `HLSConnection` to
/// carry out). No I/O, no clock, no thread: every state x input pair is tested on its own.
///
/// It loads the playlist (a master's variant chosen by `HLSVariantChoice`), finds where a time
/// falls (`HLSSeekLocation`, asking for segments' heads), tells the answer, then follows the
/// playlist (`HLSMediaFollower`: live edge, reloads a target duration apart, end list), plays
/// each segment (its initialization section first when it changes), fetches ahead and races
/// slow fetches (`HLSPrefetchPlan`), tries a failed segment again after a backoff and gives up
/// after `segmentAttempts`, and holds its own deliveries while the receiver pauses them.
///
/// Inputs come from two kinds of threads. The connection's thread feeds `start`, `tick` and the
/// results of the actions it carried out, and is given the actions that block (fetches,
/// deliveries, waits, the end). Other threads (a segment's transfer, the engine, the player)
/// feed `segmentEnded`, `segmentFailed`, `prefetchEnded`, `resume` and `stop`, and are given
/// only actions that return at once (`wake`, `resumeSegment`, `cancelTransfers`).
struct HLSFetchMachine: Sendable {
    /// What a connection was asked for, and where.
    struct Configuration: Hashable, Sendable {
        /// The playlist's URL (the source's).
        var url: String
        /// Which variant of a master playlist is followed.
        var selection = HLSVariantSelection()
        /// The most seconds of segments fetched ahead (nil: as many as `segmentsAhead`).
        var lookahead: Double?
        /// The time to start at (`AudioSourceRequest.time`), seconds from the stream's start.
        var time: Double?
        /// The offset the connection was asked for, told back when it starts at `time`.
        var offset: Int64 = 0
    }

    /// A segment with the URL it is fetched from.
    struct Part: Hashable, Sendable {
        var segment: HLSMediaPlaylist.Segment
        var url: String
        /// What its playlist's entries (its key, its initialization section) resolve against.
        var base: String
        /// What names its fetch: its URL and where its range starts.
        var key: String { "\(segment.byteRange?.offset ?? 0) \(url)" }
    }

    enum Input: Hashable, Sendable {
        /// The connection's thread starts, at this time (seconds on a monotonic clock).
        case start(at: Double)
        /// The connection's thread woke (a wait ended, or it was signalled) at this time.
        case tick(at: Double)
        /// `fetchPlaylist` read this playlist, answered from `base` (its segments resolve there).
        case playlistLoaded(HLSPlaylist, url: String, base: String, at: Double)
        /// `fetchPlaylist` failed (the fetch, its status, or the parse).
        case playlistFailed(AudioStreamerError, at: Double)
        /// `readHead` found segment `index`'s first timestamp (nil: none, or it could not be read).
        case headRead(index: Int, timestamp: Int64?)
        /// The receiver took the answer of `open`.
        case opened(at: Double)
        /// `readInitialization` read these bytes (decrypted), at this time.
        case initializationRead([UInt8], at: Double)
        /// `finishSegment` read the segment's last audio bytes, at this time.
        case tailRead([UInt8], at: Double)
        /// The receiver took the bytes of `deliver`, at this time.
        case delivered(at: Double)
        /// The receiver paused the bytes of `deliver`: they are given again after `resume`.
        case deliveryPaused
        /// The transfer of `startSegment` is known to the connection (it may have ended already),
        /// at this time.
        case segmentStarted(at: Double)
        /// The segment's transfer read every byte; `delivered`: its audio bytes given so far.
        case segmentEnded(delivered: Int)
        /// The segment's transfer failed; `retry`: fetching it again may help.
        case segmentFailed(AudioStreamerError, retry: Bool, delivered: Int)
        /// The fetch ahead of the segment named `key` ended (its bytes or its failure wait).
        case prefetchEnded(key: String)
        /// The receiver wants bytes again after a pause.
        case resume
        /// Something the connection did failed for good (a key, a decryptor, a segment's bytes).
        case failed(AudioStreamerError)
        /// The receiver said `.stop`, or the connection was cancelled: nothing more is told.
        case stop
    }

    /// How the connection's thread ends.
    enum Ending: Hashable, Sendable {
        /// Every segment was played: the receiver is told of the end.
        case finished
        /// The receiver is told of this error.
        case failed(AudioStreamerError)
        /// Nothing more is told.
        case stopped
    }

    enum Action: Equatable, Sendable {
        /// Fetch and parse the playlist at this URL (the thread; then `playlistLoaded` or `playlistFailed`).
        case fetchPlaylist(String)
        /// Read this segment's first timestamp, segment `index` of the playlist (then `headRead`).
        case readHead(index: Int, Part)
        /// Give this answer to the receiver (then `opened`, or `stop` when it refuses).
        case open(AudioSourceAnswer)
        /// Fetch this initialization section of the segment (decrypted as its key says), then
        /// `initializationRead`.
        case readInitialization(HLSMediaPlaylist.Map, of: Part)
        /// Give these bytes to the receiver at the next offset (then `delivered`, `deliveryPaused` or `stop`).
        case deliver([UInt8])
        /// Start this attempt (1 first) at a segment: from its bytes fetched ahead when
        /// `prefetched` (streamed when that fetch failed), else streamed; `delivered`: its audio
        /// bytes an earlier attempt gave (not given again). Then `segmentStarted`.
        case startSegment(Part, attempt: Int, delivered: Int, prefetched: Bool)
        /// Resume the segment's transfer, which the receiver paused.
        case resumeSegment
        /// Read the last audio bytes of this segment, whose transfer ended (then `tailRead`, or `failed`).
        case finishSegment(Part)
        /// Fetch this segment ahead (a second time: race the first fetch).
        case prefetch(Part)
        /// Cancel the fetch ahead named this and forget it.
        case cancelPrefetch(String)
        /// Cancel every transfer and fetch.
        case cancelTransfers
        /// Signal the connection's thread (it feeds `tick`).
        case wake
        /// The thread waits until this time (nil: until signalled), then feeds `tick`.
        case wait(until: Double?)
        /// The thread ends, as this says.
        case end(Ending)
    }

    /// How many times a segment is fetched before the stream ends with its error.
    static let segmentAttempts = 4
    /// The wait before the first retry of a segment, in seconds (doubled at each).
    static let segmentBackoff = 0.25
    /// Segments fetched ahead of the one playing, at most (`HLSPrefetchPlan`).
    static let segmentsAhead = 3
    /// How often the thread looks at the fetches ahead while one may yet need racing, in seconds.
    static let prefetchTick = 0.25

    let configuration: Configuration
    var phase: Phase = .idle

    /// A machine for a connection asked for what `configuration` says.
    init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Nothing more is told: the connection was stopped, or its thread ended.
    var isOver: Bool {
        switch phase {
        case .stopping, .over: true
        default: false
        }
    }

    /// Feeds `input`; returns what to do, in order.
    mutating func input(_ input: Input) -> [Action] {
        switch input {
        case .stop:
            return stop()
        case .resume:
            return resume()
        case .segmentEnded(let delivered):
            return segmentOver(.ended(delivered: delivered))
        case .segmentFailed(let error, let retry, let delivered):
            return segmentOver(.failed(error, retry: retry, delivered: delivered))
        case .prefetchEnded(let key):
            return prefetchEnded(key)
        default:
            return threadInput(input)
        }
    }

    /// An input from the connection's thread.
    private mutating func threadInput(_ input: Input) -> [Action] {
        switch (phase, input) {
        case (.stopping, _):
            phase = .over
            return [.end(.stopped)]
        case (.over, _):
            return []
        case (_, .failed(let error)):
            return end(.failed(error))
        case (.idle, .start):
            phase = .loading(variant: false)
            return [.fetchPlaylist(configuration.url)]
        case (.loading(let variant), .playlistLoaded(let playlist, let url, let base, _)):
            return loaded(playlist, url: url, base: base, variant: variant)
        case (.loading, .playlistFailed(let error, _)):
            return end(.failed(error))
        case (.locating(var locating), .headRead(let index, let timestamp)):
            locating.timestamps[index] = timestamp
            return locate(locating)
        case (.opening(let opening), .opened(let now)):
            var follower = HLSMediaFollower(startingAt: opening.sequence)
            follower.loaded(opening.media.playlist, at: now)
            return advance(Following(media: opening.media, follower: follower), at: now)
        case (.following(let following), _):
            return follow(following, input)
        default:
            preconditionFailure("HLSFetchMachine: \(input) in \(phase)")
        }
    }

    // MARK: - Opening

    /// The playlist of the first load (`variant`: a master's variant) came.
    private mutating func loaded(_ playlist: HLSPlaylist, url: String, base: String, variant: Bool) -> [Action] {
        switch playlist {
        case .media(let media):
            return opening(Media(playlist: media, url: url, base: base))
        case .master where variant:
            return end(.failed(Self.error(.unsupportedFormat, "\(url): the variant's playlist is a master playlist too")))
        case .master(let master):
            let found: HLSVariantChoice.Choice?
            do throws(PlaylistError) {
                found = try HLSVariantChoice.choose(master, configuration.selection)
            } catch {
                return end(.failed(Self.error(.unsupportedFormat, "\(configuration.url): \(error.message)")))
            }
            guard let choice = found else {
                return end(.failed(Self.error(.noAudioData, "\(configuration.url): the HLS master playlist lists no variant")))
            }
            switch Self.resolve(choice.uri, base: base) {
            case .failure(let error):
                return end(.failed(error))
            case .success(let url):
                phase = .loading(variant: true)
                return [.fetchPlaylist(url)]
            }
        }
    }

    /// The media playlist to follow is known: where it starts (a time found first), then the answer.
    private mutating func opening(_ media: Media) -> [Action] {
        // A playlist that keeps its segments can be played from any of them.
        let playlist = media.playlist
        guard playlist.seeksByTime, let time = configuration.time ?? Self.lateStart(of: playlist) else {
            return open(Opening(media: media, sequence: nil, startTime: nil))
        }
        return locate(Locating(media: media, time: time))
    }

    /// Looks for the segment holding the time, with the timestamps read so far: asks for the
    /// next one needed, or opens at the segment found.
    private mutating func locate(_ locating: Locating) -> [Action] {
        let media = locating.media
        let found: HLSSeekLocation.Found?
        do throws(MissingTimestamp) {
            found = try HLSSeekLocation.locate(locating.time, in: media.playlist) { index throws(MissingTimestamp) in
                guard let known = locating.timestamps[index] else { throw MissingTimestamp(index: index) }
                return known
            }
        } catch {
            let segment = media.playlist.segments[error.index]
            switch Self.resolve(segment.uri, base: media.base) {
            case .failure(let failure):
                return end(.failed(failure))
            case .success(let url):
                phase = .locating(locating)
                return [.readHead(index: error.index, Part(segment: segment, url: url, base: media.base))]
            }
        }
        guard let found else { return open(Opening(media: media, sequence: nil, startTime: nil)) }
        return open(
            Opening(
                media: media, sequence: media.playlist.segments[found.index].sequence,
                startTime: .init(seconds: found.start, isExact: found.isExact)))
    }

    /// Tells the answer.
    private mutating func open(_ opening: Opening) -> [Action] {
        let playlist = opening.media.playlist
        let offset = opening.startTime != nil && configuration.time != nil ? configuration.offset : 0
        var answer = AudioSourceAnswer(offset: offset, totalSize: nil, rangesSupported: false, isLive: playlist.isLive)
        answer.seeksByTime = playlist.seeksByTime
        answer.startTime = opening.startTime
        answer.duration = playlist.isLive ? nil : playlist.duration
        phase = .opening(opening)
        return [.open(answer)]
    }

    /// Where an EVENT playlist not yet ended is joined (near its live end, as `HLSMediaFollower`
    /// starts it): the start of that segment by the durations, when it is not the first; nil
    /// for another playlist.
    static func lateStart(of media: HLSMediaPlaylist) -> Double? {
        guard media.isLive, media.kind == .event else { return nil }
        let first = HLSMediaFollower.start(of: media)
        guard let index = media.segments.firstIndex(where: { $0.sequence == first }), index > 0 else { return nil }
        return media.segments[..<index].reduce(0) { $0 + $1.duration }
    }

    // MARK: - From other threads

    /// The connection stops: its transfers are cancelled and its thread ends, telling nothing.
    private mutating func stop() -> [Action] {
        guard !isOver else { return [] }
        phase = .stopping
        return [.cancelTransfers, .wake]
    }

    /// The receiver wants bytes again: the segment's transfer resumes, or the thread delivers again.
    private mutating func resume() -> [Action] {
        guard case .following(var following) = phase else { return [] }
        defer { phase = .following(following) }
        switch following.step {
        case .streaming(let part, let attempt, .starting):
            following.step = .streaming(part, attempt: attempt, .starting(resumePending: true))
            return []
        case .streaming(_, _, .running):
            return [.resumeSegment]
        case .delivering(let bytes, let then, .paused):
            following.step = .delivering(bytes, then: then, .ready)
            return [.wake]
        case .delivering(let bytes, let then, .inFlight):
            following.step = .delivering(bytes, then: then, .inFlight(resumed: true))
            return []
        default:
            return []
        }
    }

    /// The segment's transfer is over: the thread looks at how.
    private mutating func segmentOver(_ outcome: Outcome) -> [Action] {
        guard case .following(var following) = phase, case .streaming(let part, let attempt, let transfer) = following.step,
            transfer.outcome == nil
        else { return [] }
        following.step = .streaming(part, attempt: attempt, .over(outcome))
        phase = .following(following)
        return [.wake]
    }

    /// A fetch ahead ended: the thread may be waiting for it.
    private mutating func prefetchEnded(_ key: String) -> [Action] {
        guard case .following(var following) = phase, following.fetches[key] != nil else { return [] }
        following.fetches[key]?.isDone = true
        phase = .following(following)
        return [.wake]
    }

    // MARK: - Helpers

    /// Ends the thread as `ending` says.
    mutating func end(_ ending: Ending) -> [Action] {
        phase = .over
        return [.cancelTransfers, .end(ending)]
    }

    /// `uri` resolved against `base` (as a playlist's entries are).
    static func resolve(_ uri: String, base: String) -> Result<String, AudioStreamerError> {
        do throws(PlaylistError) {
            let location = try PlaylistEntry(uri, title: nil).location(in: .url(base))
            guard case .url(let url) = location else { throw PlaylistError(.badEntry, "not an http(s) URL") }
            return .success(url)
        } catch {
            return .failure(Self.error(.unsupportedFormat, "\(uri) in the HLS playlist \(base): \(error.message)"))
        }
    }

    /// An error that trying again does not mend.
    static func error(_ code: AudioStreamerError.Code, _ message: String) -> AudioStreamerError {
        AudioStreamerError(code, message, retryable: false)
    }

    /// A timestamp `HLSSeekLocation` asked for and the machine does not have yet.
    private struct MissingTimestamp: Error {
        var index: Int
    }
}

extension HLSMediaPlaylist {
    /// Whether it keeps its segments (VOD, EVENT, or ended): it can be played from any of them.
    fileprivate var seeksByTime: Bool { !isLive || kind == .event }
}
