import SlipstreamHTTP

/// What an audio URL or file is (format, bit rate, duration, tags, gapless figures), read with
/// as few bytes as that takes: the head only until the first audio packet (so that a Xing or
/// VBRI header or a WAV `fmt ` chunk is read), jumping over what the parser would only skip (a
/// large ID3v2 picture) where the source answers ranges, then the last bytes for the tags that
/// trail the audio. A live stream (a radio station) is read for a few seconds at most: its
/// station's facts, format, bit rate and current title. What the command line's `slipstream
/// info` prints.
///
///     let info = try await AudioInfo.read(from: "http://127.0.0.1:8080/song.mp3")
///     print(info.audio.format.codecDescription, info.audio.duration ?? 0)
///     print(info.source.bytesRead, info.source.requests)
public struct AudioInfo: Hashable, Sendable, Codable {
    /// How a read is made.
    public struct Options: Sendable {
        /// Read every byte, so that every total is an exact count (not the header's figure or
        /// an estimate). Default false.
        public var readsWholeStream = false
        /// Proxy for an HTTP(S) URL (`http://`, `https://`, `socks5h://` ...). Default none.
        public var proxy: String?
        /// Extra request headers for an HTTP(S) URL. Default none.
        public var headers = HTTPHeaders()
        /// TLS trust, a login and cookies for an HTTP(S) URL. The login goes only to the
        /// server of the URL described, never to one a redirect or a playlist leads to.
        /// Default: verified TLS, no login, no cookies.
        public var access = TransferAccess()
        /// Which variant of an HLS master playlist is described. Default: the one the player
        /// plays by default (see `HLSVariantSelection`).
        public var hlsVariant = HLSVariantSelection()

        /// The default options.
        public init() {}
    }

    /// Where the bytes came from, what the server said, and how much was read.
    public var source: Source
    /// The audio's format, bit rate, duration, tags and gapless figures.
    public var audio: AudioStreamInfo

    /// Describes the audio of `location`, an `http(s)://` URL or a local file path, reading as
    /// little of it as `options` allow; a URL on `engine` (default: the shared one, which a file
    /// does not start). A playlist (M3U, PLS, XSPF) is followed: its first entry that can be
    /// described is, with `source.playlist` saying so. An HLS playlist from a URL is described
    /// as one stream: `source.hls` tells its variants, type, segments and encryption, `audio`
    /// what its first segments hold. Throws an `AudioInfoError` naming the URL or file: it
    /// cannot be read (`.file`, `.network`, `.httpStatus`, `.rangeNotHonoured`, `.invalidURL`)
    /// or is not audio in a supported format (`.notAudio`; an HLS playlist in a local file
    /// too). Cancelling the calling task cancels the read and throws `.cancelled`.
    public static func read(
        from location: String, options: Options = Options(),
        engine: HTTPEngine? = nil
    ) async throws(AudioInfoError) -> AudioInfo {
        let place = AudioLocation(location)
        switch try await describe(place, name: location, options: options, engine: engine, loginOrigins: place.origins) {
        case .audio(let info): return info
        case .playlist(let document):
            if let info = try await describeHLS(document, options: options, engine: engine) { return info }
            return try await follow(document, options: options, engine: engine)
        }
    }

    /// What `place` holds: its audio described, or the playlist it is (`name`: the URL or file
    /// as given, for messages and its extension); the login only to `loginOrigins`.
    static func describe(
        _ place: AudioLocation, name: String, options: Options, engine: HTTPEngine?, loginOrigins: [URLOrigin]
    ) async throws(AudioInfoError) -> Found {
        let source: any AudioSource
        switch place {
        case .file(let path):
            source = FileAudioSource(path: path)
        case .url(let url):
            var template = HTTPRequest(url: url)
            template.proxy = options.proxy
            template.headers = options.headers
            template.access = options.access.scoped(to: url, loginOrigins: loginOrigins)
            source = makeHTTPAudioSource(template, engine: engine ?? .shared, requestsStreamMetadata: true)
        }
        var reader = AudioInfoReader(source: source, name: name)
        switch try await reader.describe(exact: options.readsWholeStream) {
        case .audio(let info):
            return .audio(info)
        case .playlist(let document):
            return .playlist(document)
        }
    }

    /// What a URL or file holds.
    enum Found {
        /// Audio, described.
        case audio(AudioInfo)
        /// A playlist, read whole.
        case playlist(PlaylistDocument)
    }
}
