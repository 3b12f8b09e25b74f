/// What is known about a stream besides its bytes. The bytes always decide the format; hints only
/// break ties, let a stream too short to confirm a frame through, and make errors clearer.
public struct AudioStreamHints: Hashable, Sendable {
    /// The HTTP `Content-Type`, e.g. `audio/mpeg`; `nil` (the default) when unknown.
    public var contentType: String?
    /// The URL's or file's extension without the dot, e.g. `mp3`; `nil` (the default) when unknown.
    public var fileExtension: String?
    /// Total size of the stream in bytes (HTTP length or file size); `nil` (the default) when
    /// unknown. Used to estimate the duration of streams whose header does not give it.
    public var totalByteCount: Int64?

    /// Creates hints; every field defaults to unknown.
    public init(contentType: String? = nil, fileExtension: String? = nil, totalByteCount: Int64? = nil) {
        self.contentType = contentType
        self.fileExtension = fileExtension
        self.totalByteCount = totalByteCount
    }

    /// The codec the hints point to, if any.
    var suggestedCodec: AudioFormat.Codec? {
        let type = contentType?.lowercased().split(separator: ";").first.map(String.init) ?? ""
        let ext = fileExtension?.lowercased() ?? ""
        if ["audio/aac", "audio/aacp", "audio/x-aac"].contains(type) || ext == "aac" { return .aac }
        if ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"].contains(type) || ext == "wav" {
            return .pcm
        }
        if ["audio/mpeg", "audio/mp3", "audio/x-mpeg"].contains(type) || ext == "mp3" { return .mp3 }
        if ext == "mp2" { return .mp2 }
        return nil
    }
}
