import SlipstreamDownload
import SlipstreamHTTP
import Synchronization

/// An HLS stream (RFC 8216) as an audio source: the segments of a media playlist given to the
/// receiver as one byte stream, as if they were one file. A master playlist is followed to the
/// media playlist `HLSVariantChoice` picks; segments are played one after the other (byte
/// ranges honoured) and read by `HLSSegmentReader`: the audio of an MPEG-TS segment, a packed
/// audio segment without its ID3 tag, or an fMP4 segment after its initialization section
/// (given once). A live playlist is followed as `HLSMediaFollower` says (each connection of a
/// live stream starts near its live end). The segments after the one playing are fetched
/// ahead, several at once and whole into memory (`HLSPrefetchPlan`, `HLSPrefetcher`): bounded
/// by a count and by `lookahead` seconds; a fetch slower than its segment is raced by a second
/// connection.
///
/// The answer tells no size and no ranges. A VOD or EVENT playlist seeks by time
/// (`AudioSourceRequest.time`): a connection opened at a time plays from the segment holding it
/// (`HLSSeekLocation`) and tells that segment's start, exact where its timestamps say it; a
/// live one cannot seek. A connection asked for a later offset without a time starts again from
/// the beginning (a live one from its live end) at offset 0, as a server that answers no ranges
/// would; its receiver drops what it has. Segments
/// encrypted with `METHOD=AES-128` are decrypted (`HLSDecryptor`; each key fetched once);
/// other methods (SAMPLE-AES ...) are refused by name. A segment that fails is tried again a
/// few times (`HLSFetchMachine.segmentAttempts`), then a recorded stream ends with an error naming
/// it (a live one goes on with the next segment).
package final class HLSAudioSource: AudioSource {
    /// A playlist's bytes already read, and the URL that answered (against which it resolves).
    package struct Document: Sendable {
        package var bytes: [UInt8]
        package var base: String

        /// The bytes of a playlist read from `base`.
        package init(bytes: [UInt8], base: String) {
            self.bytes = bytes
            self.base = base
        }
    }

    /// What every connection needs.
    final class Setup: Sendable {
        /// The playlist's URL.
        let url: String
        /// The request every fetch starts from (proxy, headers, timeouts, access).
        let template: HTTPRequest
        let engine: HTTPEngine
        /// Where the access's login may go (nil: wherever the template's access goes).
        let loginOrigins: [URLOrigin]?
        /// Which variant of a master playlist is followed.
        let selection: HLSVariantSelection
        /// The most seconds of segments fetched ahead (nil: as many as `HLSFetchMachine.segmentsAhead`).
        let lookahead: Double?
        /// The download that keeps the stream, whose segments are played (nil: fetched here).
        let kept: HLSKeptResources?
        /// What the first segment read holds, once known.
        let segmentKind = Mutex<HLSSegmentReader.Kind?>(nil)
        /// Requests made and bytes received by every connection (playlists, keys, segments).
        let traffic = Mutex<(requests: Int, bytes: Int64)>((0, 0))
        /// The stream's size once a connection played it to its end (`EXT-X-ENDLIST`).
        let endedAt: Mutex<Int64?>
        /// The first timestamps of segments read for seeks (nil: none found), by range offset and URL.
        let timestamps = Mutex<[String: Int64?]>([:])
        /// The most timestamps kept (then they are read again).
        static let keptTimestamps = 4096

        init(
            url: String, template: HTTPRequest, engine: HTTPEngine, loginOrigins: [URLOrigin]?, selection: HLSVariantSelection,
            lookahead: Double?, kept: HLSKeptResources?
        ) {
            self.url = url
            self.kept = kept
            self.lookahead = lookahead
            self.template = template
            self.engine = engine
            self.loginOrigins = loginOrigins
            self.selection = selection
            endedAt = Mutex(nil)
        }

        /// The template for a fetch of `url`: the login only when `url` is on a login origin.
        func request(_ url: String) -> HTTPRequest {
            var request = template
            request.url = url
            if let loginOrigins { request.access = template.access.scoped(to: url, loginOrigins: loginOrigins) }
            return request
        }
    }

    private let setup: Setup
    /// The playlist as already read (by the player's probe), for the first connection.
    private let first: Mutex<Document?>

    /// A source for the playlist at `template`'s URL, fetched on `engine`; `document`: its bytes
    /// as already read, used by the first connection instead of fetching them again. The
    /// template's login goes only to `loginOrigins` (playlists, keys and segments elsewhere are
    /// fetched without it); nil: with every fetch, as the template says. A master playlist's
    /// variant is chosen as `selection` says; segments are fetched ahead up to `lookahead`
    /// seconds of them (nil: up to `HLSFetchMachine.segmentsAhead` segments), taken from `kept`
    /// when an `HLSDownload` keeps the stream.
    package init(
        template: HTTPRequest, engine: HTTPEngine, document: Document? = nil, loginOrigins: [URLOrigin]? = nil,
        selection: HLSVariantSelection = HLSVariantSelection(), lookahead: Double? = nil, kept: HLSKeptResources? = nil
    ) {
        setup = Setup(
            url: template.url, template: template, engine: engine, loginOrigins: loginOrigins, selection: selection, lookahead: lookahead,
            kept: kept)
        first = Mutex(document)
    }

    package var location: AudioLocation { .url(setup.url) }

    /// What the first segment read holds (MPEG-TS, packed audio, fMP4), once a connection read it.
    var segmentKind: HLSSegmentReader.Kind? { setup.segmentKind.withLock { $0 } }
    /// The HTTP requests every connection made so far, and the bytes they received (of a
    /// segment's byte range, those of the range).
    var traffic: (requests: Int, bytes: Int64) { setup.traffic.withLock { $0 } }

    package func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection {
        if request.time == nil, let size = setup.endedAt.withLock({ $0 }), request.offset >= size {
            // A live stream that ended (`EXT-X-ENDLIST`) and is asked for more (a player
            // reconnects to a live stream that ends): it has a size now, and nothing after it.
            return HLSConnection.ended(size, receiver: receiver)
        }
        let document = first.withLock { $0.take() }
        let connection = HLSConnection(setup: setup, request: request, receiver: receiver, document: document)
        connection.start()
        return connection
    }
}
