/// What is known about a stream besides its bytes. The bytes alone decide the format (streams
/// are often served as application/octet-stream, or as audio/mpeg when they are AAC); the
/// hints make errors clearer and size-based estimates possible.
public struct AudioStreamHints: Hashable, Sendable {
    /// The HTTP `Content-Type`, e.g. `audio/mpeg`; `nil` (the default) when unknown.
    public var contentType: String?
    /// The URL's or file's extension without the dot, e.g. `mp3`; `nil` (the default) when unknown.
    public var fileExtension: String?
    /// Total size of the stream in bytes (HTTP length or file size); `nil` (the default) when
    /// unknown. Used to estimate the duration of streams whose header does not give it.
    public var totalByteCount: Int64?
    /// The stream's duration in seconds as its source knows it apart from its bytes (the
    /// segment durations of an HLS playlist that has ended), taken when the stream's own
    /// headers give none; `nil` (the default) when unknown.
    public var duration: Double?

    /// Creates hints; every field defaults to unknown.
    public init(contentType: String? = nil, fileExtension: String? = nil, totalByteCount: Int64? = nil, duration: Double? = nil) {
        self.contentType = contentType
        self.fileExtension = fileExtension
        self.totalByteCount = totalByteCount
        self.duration = duration
    }
}
