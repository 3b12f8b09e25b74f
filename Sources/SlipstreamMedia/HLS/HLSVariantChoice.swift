/// Which media playlist of a master playlist an audio player follows. Pure.
///
/// Audio-only variants come first: the one of the highest bandwidth within the limit (without
/// one, the lowest). Where every variant carries pictures, the audio is what is wanted: a
/// variant's audio rendition with a playlist of its own is played instead of the variant (the
/// default one of its group, else one to select automatically, else the first); failing that,
/// the variant of the lowest bandwidth within the limit, its audio taken out of its segments.
package enum HLSVariantChoice {
    /// The choice: the media playlist to follow and what it is.
    package struct Choice: Hashable, Sendable {
        /// The media playlist's URI, as written in the master playlist.
        package var uri: String
        /// The variant chosen (an index into `variants`).
        package var variantIndex: Int
        /// The audio rendition followed instead of the variant's own playlist, if one is.
        package var rendition: HLSMasterPlaylist.Rendition?
    }

    /// The choice in `master`: variant `variantIndex` when given (and there), else as above with
    /// `maximumBitRate` (bits per second) as the limit. Nil when it lists no variant.
    package static func choose(_ master: HLSMasterPlaylist, maximumBitRate: Int64? = nil, variantIndex: Int? = nil) -> Choice? {
        let variants = master.variants
        guard !variants.isEmpty else { return nil }
        let limit = maximumBitRate ?? .max
        let chosen: Int
        if let variantIndex, variants.indices.contains(variantIndex) {
            chosen = variantIndex
        } else {
            let audioOnly = variants.indices.filter { !variants[$0].hasVideo }
            if !audioOnly.isEmpty {
                let within = audioOnly.filter { variants[$0].bandwidth <= limit }
                chosen =
                    within.max { variants[$0].bandwidth < variants[$1].bandwidth }
                    ?? audioOnly.min { variants[$0].bandwidth < variants[$1].bandwidth }!
            } else {
                let within = variants.indices.filter { variants[$0].bandwidth <= limit }
                let pool = within.isEmpty ? Array(variants.indices) : within
                chosen = pool.min { variants[$0].bandwidth < variants[$1].bandwidth }!
            }
        }
        let variant = variants[chosen]
        if variant.hasVideo, let rendition = audioRendition(of: variant, in: master) {
            return Choice(uri: rendition.uri!, variantIndex: chosen, rendition: rendition)
        }
        return Choice(uri: variant.uri, variantIndex: chosen, rendition: nil)
    }

    /// The audio rendition of `variant`'s group that has a playlist of its own.
    private static func audioRendition(of variant: HLSMasterPlaylist.Variant, in master: HLSMasterPlaylist) -> HLSMasterPlaylist.Rendition?
    {
        guard let group = variant.audioGroup else { return nil }
        let candidates = master.renditions.filter { $0.type == "AUDIO" && $0.groupID == group && $0.uri != nil }
        return candidates.first { $0.isDefault } ?? candidates.first { $0.autoselect } ?? candidates.first
    }
}
