/// Metadata a source found beside the audio bytes (the side channel).
package enum AudioSourceMetadata: Hashable, Sendable {
    /// What the station says about itself, from a connection's answer (told before its bytes).
    case station(StationInfo)
    /// The title of what plays from stream offset `offset` on (an ICY `StreamTitle`).
    case title(StreamTitle, offset: Int64)
}
