/// The containers the parser knows by their first bytes but cannot play yet: IFF files other
/// than AIFF, and Matroska/WebM. (An Ogg codec it cannot play is refused by name by `OggParser`.)
///
/// Looked for at a stream's first bytes (after its leading tags) before any MPEG audio or ADTS
/// sync is searched for: their pages and boxes are full of bytes that pass for frame headers (an
/// M4A's sample tables can fake an MPEG Layer II sync), and a refusal then comes after a few
/// bytes, not after the junk limit.
package enum UnsupportedContainer {
    /// What the window's front holds.
    package enum Match: Equatable {
        /// None of these containers.
        case none
        /// Cannot tell before the window holds this many bytes.
        case need(Int)
        /// This container, by name (e.g. "MP4/M4A").
        case found(String)
    }

    /// The container at the front of `window`, if it is one of these; with `isFinal`, no more
    /// bytes will come (a container named by its signature alone then).
    package static func match(_ window: UnsafeRawBufferPointer, isFinal: Bool) -> Match {
        guard window.count >= 12 || isFinal else { return .need(12) }
        if window.starts(with: "FORM"), !window.starts(with: "AIFF", at: 8), !window.starts(with: "AIFC", at: 8) {
            return .found("IFF")
        }
        if window.count >= 4, window[0] == 0x1A, window[1] == 0x45, window[2] == 0xDF, window[3] == 0xA3 {
            return .found("Matroska/WebM")
        }
        return .none
    }
}
