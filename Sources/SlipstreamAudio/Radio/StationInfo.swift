import SlipstreamHTTP

/// What an internet radio station says about itself in its response headers (`icy-name`,
/// `icy-genre`, `icy-description`, `icy-url`, `icy-br`; Icecast sends the same as `ice-*` for
/// some). The engine reads header text as UTF-8 when valid, else as Windows-1252.
public struct StationInfo: Hashable, Sendable, Codable {
    /// The station's name.
    public var name: String?
    /// Its genre(s), as the station writes them.
    public var genre: String?
    /// A line about the station.
    public var description: String?
    /// The station's web site.
    public var url: String?
    /// The stream's bit rate in kbit/s, as the station states it.
    public var bitRate: Int?

    /// Station facts; every field is optional.
    public init(name: String? = nil, genre: String? = nil, description: String? = nil, url: String? = nil, bitRate: Int? = nil) {
        self.name = name
        self.genre = genre
        self.description = description
        self.url = url
        self.bitRate = bitRate
    }

    /// The station facts in `headers`; nil when there are none (not a radio station).
    package init?(headers: HTTPHeaders) {
        func field(_ name: String) -> String? {
            guard let value = headers["icy-\(name)"] ?? headers["ice-\(name)"], !value.isEmpty else { return nil }
            return value
        }
        name = field("name")
        genre = field("genre")
        description = field("description")
        url = field("url")
        // `icy-br` may list several rates ("128,128"): the first counts.
        bitRate = field("br").flatMap { Int($0.split(separator: ",").first?.trimmingSpaces() ?? "") }
        if self == StationInfo() { return nil }
    }
}
