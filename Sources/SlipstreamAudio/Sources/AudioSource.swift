import SlipstreamHTTP

/// Where a player's bytes come from: a URL, a file, and later wrappers around them (an ICY
/// filter that takes the metadata out of a radio stream, a playlist that resolves to its first
/// entry, an HLS sequencer joining segments). A source opens connections; each delivers bytes
/// with their offsets in the stream to a receiver, on the source's own thread, honouring
/// `.pause` (backpressure) until `resume()`.
///
/// A source knows what it is: ranged or not (whether any offset can be asked for), live or not
/// (no length; a new connection starts at "now", not at an offset), and it tells metadata found
/// beside the audio (titles) on a side channel.
package protocol AudioSource: AnyObject, Sendable {
    /// The URL or file, for messages and errors.
    var location: AudioLocation { get }

    /// Opens a connection for `request`: `receiver` is told of the answer, then given the bytes
    /// from the answer's offset on, then told of the end (unless it said `.stop`). Returns at
    /// once; everything happens on the source's thread.
    func open(_ request: AudioSourceRequest, receiver: any AudioSourceReceiver) -> any AudioSourceConnection

    /// The player's parser found what the stream is (its bit rate, its duration): a source that
    /// fetches ahead of the player sizes what it fetches by it.
    func streamFound(_ properties: AudioStreamProperties)
}

extension AudioSource {
    /// Takes no notice: the source fetches what it is asked for.
    package func streamFound(_ properties: AudioStreamProperties) {}
}

/// One open connection of a source, as its owner drives it.
package protocol AudioSourceConnection: AnyObject, Sendable {
    /// Delivers again after the receiver said `.pause`.
    func resume()
    /// Stops delivering; nothing more is told. Safe at any time and more than once.
    func cancel()
    /// Lets bytes gather for up to `interval` before they are delivered, in fewer and larger
    /// deliveries (a live stream, arriving at its playing speed, to a player that holds seconds
    /// of it); `nil` delivers bytes as they come, the default. A hint: a source may ignore it.
    func gatherReads(every interval: Duration?)
}

extension AudioSourceConnection {
    /// Ignores the hint: bytes are delivered as they come.
    package func gatherReads(every interval: Duration?) {}
}

/// Opens the source for `location`: a local file, or an `http(s)://` URL with `configuration`'s
/// proxy, headers, access and timeouts on `engine` (nil: the shared engine), asking a radio
/// station for its titles unless `configuration.requestsStreamMetadata` is false
/// (`makeHTTPAudioSource`). The login goes only to `loginOrigin`'s server (the URL played).
package func makeAudioSource(
    _ location: AudioLocation, configuration: AudioStreamerConfiguration,
    engine: HTTPEngine?, loginOrigin: AudioLocation
) -> any AudioSource {
    switch location {
    case .file(let path):
        return FileAudioSource(path: path)
    case .url(let url):
        return makeHTTPAudioSource(
            makeAudioRequest(url, configuration: configuration, loginOrigins: loginOrigin.origins), engine: engine ?? .shared,
            requestsStreamMetadata: configuration.requestsStreamMetadata)
    }
}

/// The request a player's fetches of `url` start from: `configuration`'s proxy, headers,
/// access and connect timeout, no low-speed limit (a paused stream moves no bytes); the login
/// only when `url` is on one of `loginOrigins` (nil: the access unscoped, for a source that
/// scopes each request itself).
func makeAudioRequest(_ url: String, configuration: AudioStreamerConfiguration, loginOrigins: [URLOrigin]?) -> HTTPRequest {
    var request = HTTPRequest(url: url)
    request.connectTimeout = configuration.connectTimeout
    request.lowSpeedLimit = 0
    request.proxy = configuration.proxy
    request.receiveBufferSize = 16 * 1024
    request.headers = configuration.headers
    request.access = loginOrigins.map { configuration.access.scoped(to: url, loginOrigins: $0) } ?? configuration.access
    return request
}

/// The source for `template`'s URL on `engine`: one that takes an old SHOUTcast server's `ICY
/// 200 OK` for a 200, and, `requestsStreamMetadata`, asks a radio station for its titles and
/// takes them out of the audio (`ICYAudioSource`).
package func makeHTTPAudioSource(_ template: HTTPRequest, engine: HTTPEngine, requestsStreamMetadata: Bool) -> any AudioSource {
    var request = template
    request.acceptsICYStatus = true
    guard requestsStreamMetadata else { return HTTPAudioSource(template: request, engine: engine) }
    // Radio stations interleave titles with the audio only for a client that asks.
    request.headers.add(name: "Icy-MetaData", value: "1")
    return ICYAudioSource(HTTPAudioSource(template: request, engine: engine))
}

extension AudioLocation {
    /// The origin of a URL, alone; none for a file.
    var origins: [URLOrigin] {
        switch self {
        case .url(let url): URLOrigin(url).map { [$0] } ?? []
        case .file: []
        }
    }
}
