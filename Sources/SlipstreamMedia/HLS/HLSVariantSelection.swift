/// Which variant of an HLS master playlist is played or described (`AudioStreamerConfiguration`
/// and `AudioInfo.Options`). By default the audio-only variant of the highest bandwidth is
/// chosen (where every variant has pictures, the audio rendition of the one of the lowest).
public struct HLSVariantSelection: Hashable, Sendable {
    /// The highest peak bit rate (`BANDWIDTH`, bits per second) chosen: the richest variant
    /// within it; where none is within it, the poorest. Nil (the default): no limit.
    public var maximumBitRate: Int64?
    /// The variant at this index (from 0, in the master playlist's order, as `slipstream info`
    /// numbers them), whatever its bit rate; an index the playlist does not have is an error.
    /// Nil (the default): chosen by bit rate.
    public var index: Int?

    /// A selection by `maximumBitRate` or `index` (neither: the default choice).
    public init(maximumBitRate: Int64? = nil, index: Int? = nil) {
        self.maximumBitRate = maximumBitRate
        self.index = index
    }
}

extension HLSVariantChoice {
    /// The choice in `master` that `selection` makes; nil when it lists no variant. Throws the
    /// message naming the variants when the index asked for is not one of them.
    package static func choose(_ master: HLSMasterPlaylist, _ selection: HLSVariantSelection) throws(PlaylistError) -> Choice? {
        let count = master.variants.count
        if let index = selection.index, count > 0, !master.variants.indices.contains(index) {
            throw PlaylistError(
                .badEntry,
                "the HLS master playlist lists \(count) variant\(count == 1 ? "" : "s") (0 to \(count - 1)): \(index) is not one of them")
        }
        return choose(master, maximumBitRate: selection.maximumBitRate, variantIndex: selection.index)
    }
}
