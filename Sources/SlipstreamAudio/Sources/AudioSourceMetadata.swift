/// Metadata a source found beside the audio bytes (the side channel).
package enum AudioSourceMetadata: Hashable, Sendable {
    /// The title of what plays from stream offset `offset` on (an ICY `StreamTitle`).
    case title(String, offset: Int64)
}
