import FuzzSupport
@testable import SlipstreamMedia

/// The plan of `get --hls` made from the input: every piece names one of its resources (a key
/// for a decryption, with a 16-byte IV), no resource twice, every URL http(s) and not the
/// playlist's own; a variant to fetch that is not the playlist itself; or a clear error.
func checkHLSDownloadPlan(_ bytes: [UInt8]) {
    let base = "http://fuzz.test/a/index.m3u8"
    let step: HLSDownloadPlanner.Step
    do {
        step = try HLSDownloadPlanner.read(bytes, url: base, base: base, variant: false)
    } catch {
        require(!error.message.isEmpty, "an empty message")
        return
    }
    switch step {
    case .fetchVariant(let url):
        require(url != base && (url.hasPrefix("http://") || url.hasPrefix("https://")), "the variant \(url)")
    case .plan(let plan):
        require(Set(plan.resources.map(\.url)).count == plan.resources.count, "a resource listed twice")
        require(plan.resources.allSatisfy { $0.url != base && ($0.url.hasPrefix("http://") || $0.url.hasPrefix("https://")) }, "a URL")
        require(plan.segmentCount == plan.pieces.filter(\.isSegment).count && plan.segmentCount > 0, "\(plan.segmentCount) segments")
        for piece in plan.pieces {
            require(plan.resources.indices.contains(piece.resource), "piece of resource \(piece.resource)")
            require(plan.resources[piece.resource].kind != .key, "a key as a piece")
            require((piece.offset == nil) == (piece.length == nil), "half a byte range")
            if let decryption = piece.decryption {
                require(plan.resources.indices.contains(decryption.key) && plan.resources[decryption.key].kind == .key, "a key")
                require(decryption.iv.count == 16, "an IV of \(decryption.iv.count) bytes")
            }
            _ = plan.describe(piece)
        }
    }
}
