import SlipstreamHTTP

extension AudioInfo {
    /// What an HLS stream's playlists say (RFC 8216): its variants and the one chosen, the media
    /// playlist followed, its type, duration, segments and encryption.
    public struct HLSStream: Hashable, Sendable, Codable {
        /// One variant of a master playlist (`EXT-X-STREAM-INF`).
        public struct Variant: Hashable, Sendable, Codable {
            /// Its media playlist, as the master playlist writes it.
            public var uri: String
            /// Its peak bit rate in bits per second (`BANDWIDTH`).
            public var bandwidth: Int64
            /// Its average bit rate in bits per second (`AVERAGE-BANDWIDTH`), when given.
            public var averageBandwidth: Int64?
            /// Its `CODECS` (`mp4a.40.2` ...), empty when not given.
            public var codecs: [String]
            /// Whether it carries pictures (its audio is what is played).
            public var hasVideo: Bool
        }

        /// How the media playlist changes.
        public enum PlaylistType: String, Hashable, Sendable, Codable {
            /// It never changes (`VOD`, or `EXT-X-ENDLIST`): it has a duration.
            case vod
            /// Segments are only added (`EVENT`, not ended yet): seekable from its start.
            case event
            /// A sliding window of a live stream.
            case live
        }

        /// What the segments are.
        public enum SegmentFormat: String, Hashable, Sendable, Codable {
            /// MPEG transport stream segments (`.ts`).
            case transportStream = "MPEG-TS"
            /// ADTS or MPEG audio frames led by an ID3 timestamp (`.aac`, `.mp3`).
            case packedAudio = "packed audio"
            /// Fragmented MP4 (`EXT-X-MAP` and `.m4s`).
            case fragmentedMP4 = "fMP4"
        }

        /// The master playlist's variants, in its order; empty when the URL is a media playlist.
        public var variants: [Variant] = []
        /// The index of the variant chosen, for a master playlist.
        public var chosenVariant: Int?
        /// The name of the audio rendition (`EXT-X-MEDIA`) followed instead of the variant's
        /// own playlist, when one is.
        public var audioRendition: String?
        /// The media playlist followed.
        public var mediaPlaylist: String
        /// VOD, EVENT or live.
        public var type: PlaylistType
        /// The sum of the segments' durations in seconds (`EXTINF`): the stream's for a VOD
        /// playlist, so far for an EVENT one; nil for a live one (a window of it).
        public var duration: Double?
        /// The segments listed.
        public var segmentCount: Int
        /// The longest a segment lasts, in seconds (`EXT-X-TARGETDURATION`).
        public var targetDuration: Int64
        /// What the first segment read holds; nil when none was read.
        public var segmentFormat: SegmentFormat?
        /// How the segments are encrypted (`AES-128`, or the method named, as `SAMPLE-AES`,
        /// which is not played); nil when they are not.
        public var encryption: String?
    }

    /// Describes the HLS stream whose playlist `document` holds (read from a URL): its facts from
    /// the playlists (the variant chosen as `options.hlsVariant` says, its media playlist
    /// fetched), its audio read through `HLSAudioSource` from the first segments, the duration
    /// the playlist's for a VOD one. Nil when `document` is not an HLS playlist from a URL.
    static func describeHLS(_ document: PlaylistDocument, options: Options, engine: HTTPEngine?) async throws(AudioInfoError) -> AudioInfo?
    {
        guard case .url(let url) = document.location, case .url(let base) = document.base, Self.isHLS(document) else { return nil }
        let engine = engine ?? .shared
        let parsed = try parseHLS(document.bytes, at: url)
        var (mediaURL, mediaBytes, mediaBase) = (url, document.bytes, base)
        // The playlist's own read.
        var requests = 1, bytesRead = Int64(document.bytes.count)
        var stream = HLSStream(mediaPlaylist: url, type: .vod, segmentCount: 0, targetDuration: 0)
        let media: HLSMediaPlaylist
        switch parsed {
        case .media(let playlist):
            media = playlist
        case .master(let master):
            stream.variants = master.variants.map {
                HLSStream.Variant(
                    uri: $0.uri, bandwidth: $0.bandwidth, averageBandwidth: $0.averageBandwidth, codecs: $0.codecs, hasVideo: $0.hasVideo)
            }
            let found: HLSVariantChoice.Choice?
            do throws(PlaylistError) { found = try HLSVariantChoice.choose(master, options.hlsVariant) } catch {
                throw AudioInfoError(playlistError: error, at: url)
            }
            guard let choice = found else { throw AudioInfoError(.notAudio, "\(url): the HLS master playlist lists no variant", url: url) }
            (stream.chosenVariant, stream.audioRendition) = (choice.variantIndex, choice.rendition?.name)
            do throws(PlaylistError) {
                guard case .url(let resolved) = try PlaylistEntry(choice.uri, title: nil).location(in: .url(base)) else {
                    throw PlaylistError(.badEntry, "not an http(s) URL")
                }
                mediaURL = resolved
            } catch {
                throw AudioInfoError(playlistError: error, at: "\(choice.uri) in \(url)")
            }
            let response = try await fetchPlaylist(mediaURL, options: options, engine: engine, loginOrigins: document.location.origins)
            (mediaBytes, mediaBase) = (response.body, response.head.effectiveURL.isEmpty ? mediaURL : response.head.effectiveURL)
            requests += 1
            bytesRead += Int64(response.body.count)
            guard case .media(let playlist) = try parseHLS(mediaBytes, at: mediaURL) else {
                throw AudioInfoError(.notAudio, "\(mediaURL): the variant's playlist is a master playlist too", url: mediaURL)
            }
            media = playlist
        }
        stream.mediaPlaylist = mediaURL
        stream.type = !media.isLive ? .vod : media.kind == .event ? .event : .live
        stream.duration = media.isLive && media.kind != .event ? nil : media.duration
        stream.segmentCount = media.segments.count
        stream.targetDuration = media.targetDuration
        stream.encryption = media.segments.first?.key.map { key in
            switch key.method {
            case .aes128: "AES-128"
            case .other(let name): name
            }
        }
        var template = HTTPRequest(url: mediaURL)
        template.proxy = options.proxy
        template.headers = options.headers
        template.access = options.access
        let source = HLSAudioSource(
            template: template, engine: engine, document: HLSAudioSource.Document(bytes: mediaBytes, base: mediaBase),
            loginOrigins: document.location.origins)
        var reader = AudioInfoReader(source: source, name: mediaURL)
        guard case .audio(var info) = try await reader.describe(exact: options.readsWholeStream) else {
            throw AudioInfoError(.notAudio, "\(mediaURL): an HLS stream whose segments hold a playlist", url: mediaURL)
        }
        stream.segmentFormat = source.segmentKind.map {
            switch $0 {
            case .transportStream: .transportStream
            case .packedAudio: .packedAudio
            case .fragmentedMP4: .fragmentedMP4
            }
        }
        if let duration = stream.duration, media.hasEnded || media.kind == .vod {
            if info.audio.durationSource != .counted { (info.audio.duration, info.audio.durationSource) = (duration, .header) }
            info.audio.isSeekableByTime = true
        } else {
            // Live (the reader left out the totals): an EVENT playlist seeks all the same.
            info.audio.isSeekableByTime = stream.type == .event
        }
        info.source.url = url
        info.source.effectiveURL = base == url ? nil : base
        info.source.contentType = nil
        info.source.acceptsRanges = nil
        info.source.isLive = stream.type == .live
        let traffic = source.traffic
        info.source.requests = requests + traffic.requests
        info.source.bytesRead = bytesRead + traffic.bytes
        info.source.hls = stream
        return info
    }

    /// Whether `document` holds an HLS playlist (which the list readers refuse by name).
    private static func isHLS(_ document: PlaylistDocument) -> Bool {
        do throws(PlaylistError) {
            _ = try document.read()
            return false
        } catch {
            return error.code == .hls
        }
    }

    private static func parseHLS(_ bytes: [UInt8], at url: String) throws(AudioInfoError) -> HLSPlaylist {
        do throws(PlaylistError) { return try HLSPlaylistParser.parse(bytes) } catch { throw AudioInfoError(playlistError: error, at: url) }
    }

    /// The media playlist at `url`, with `options`' proxy, headers and access (the login only
    /// to `loginOrigins`).
    private static func fetchPlaylist(
        _ url: String, options: Options, engine: HTTPEngine, loginOrigins: [URLOrigin]
    ) async throws(AudioInfoError) -> HTTPResponse {
        var request = HTTPRequest(url: url)
        request.proxy = options.proxy
        request.headers = options.headers
        request.access = options.access.scoped(to: url, loginOrigins: loginOrigins)
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try await engine.fetch(request, maxBodyBytes: HLSPlaylistParser.maximumSize + 1)
        } catch {
            throw AudioInfoError(AudioStreamerError(error))
        }
        guard response.head.isSuccess else {
            throw AudioInfoError(
                .httpStatus, "\(url): the HLS playlist got HTTP \(response.head.statusText)", url: url, status: response.head.status)
        }
        return response
    }
}
