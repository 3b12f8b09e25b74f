/// Makes the `HLSDownloadPlan` of a stream from its playlists. Pure: the caller fetches each
/// playlist it is asked for and hands its bytes in.
///
/// A master playlist names the media playlist to fetch next, chosen as the player chooses
/// (`HLSVariantChoice`, with the `HLSVariantSelection` given); a media playlist gives the plan. Refused, with a message naming the
/// playlist: a live playlist (no `EXT-X-ENDLIST` and not `VOD`: it has no end to download to), a
/// method of encryption other than AES-128, a playlist that lists itself (as its variant or as a
/// segment), a variant's playlist that is a master playlist again, and one without segments.
package enum HLSDownloadPlanner {
    /// What a playlist gives.
    package enum Step: Hashable, Sendable {
        /// It is a master playlist: fetch this media playlist and read it with `variant: true`.
        case fetchVariant(url: String)
        /// It is the media playlist: the plan.
        case plan(HLSDownloadPlan)
    }

    /// Reads the playlist `bytes`, fetched from `url`, which answered from `base` (its URL
    /// after redirects, which its entries resolve against); `variant` when it is the media
    /// playlist a master playlist chose (by `selection`).
    package static func read(
        _ bytes: [UInt8], url: String, base: String, variant: Bool, selection: HLSVariantSelection = .init()
    ) throws(HLSDownloadFailure) -> Step {
        let playlist: HLSPlaylist
        do throws(PlaylistError) {
            playlist = try HLSPlaylistParser.parse(bytes)
        } catch {
            throw HLSDownloadFailure("\(url): \(error.message)")
        }
        switch playlist {
        case .master(let master):
            guard !variant else { throw HLSDownloadFailure("\(url): the variant's playlist is a master playlist too") }
            let chosen: HLSVariantChoice.Choice?
            do throws(PlaylistError) {
                chosen = try HLSVariantChoice.choose(master, selection)
            } catch {
                throw HLSDownloadFailure("\(url): \(error.message)")
            }
            guard let choice = chosen else { throw HLSDownloadFailure("\(url): the HLS master playlist lists no variant") }
            let next = try resolve(choice.uri, base: base)
            guard next != url, next != base else { throw HLSDownloadFailure("\(url): the HLS master playlist lists itself as its variant") }
            return .fetchVariant(url: next)
        case .media(let media):
            return .plan(try plan(media, url: url, base: base))
        }
    }

    private static func plan(_ media: HLSMediaPlaylist, url: String, base: String) throws(HLSDownloadFailure) -> HLSDownloadPlan {
        guard !media.isLive else {
            throw HLSDownloadFailure(
                "\(url) is a live HLS playlist (no #EXT-X-ENDLIST): only a stream that has ended can be downloaded",
                isLive: true)
        }
        guard !media.segments.isEmpty else { throw HLSDownloadFailure("\(url): the HLS playlist lists no segment") }
        var plan = HLSDownloadPlan(playlistURL: url)
        var indexes: [String: Int] = [:]
        func resource(_ uri: String, _ kind: HLSDownloadPlan.ResourceKind) throws(HLSDownloadFailure) -> Int {
            let resolved = try resolve(uri, base: base)
            guard resolved != url, resolved != base else { throw HLSDownloadFailure("\(url): the HLS playlist lists itself as a segment") }
            if let index = indexes[resolved] {
                // A file may hold an init section and segments (byte ranges), never a key and media.
                guard (plan.resources[index].kind == .key) == (kind == .key) else {
                    throw HLSDownloadFailure("\(url): \(resolved) is listed both as an AES-128 key and as media")
                }
                return index
            }
            plan.resources.append(.init(url: resolved, kind: kind))
            indexes[resolved] = plan.resources.count - 1
            return plan.resources.count - 1
        }
        func decryption(_ key: HLSMediaPlaylist.Key?, _ what: String, sequence: Int64) throws(HLSDownloadFailure)
            -> HLSDownloadPlan.Decryption?
        {
            guard let key else { return nil }
            guard key.method == .aes128 else {
                let name = if case .other(let name) = key.method { name } else { "" }
                throw HLSDownloadFailure("\(url): \(what) is encrypted with \(name), which is not supported (only AES-128)")
            }
            return .init(key: try resource(key.uri, .key), iv: key.iv(sequence: sequence))
        }
        var currentMap: HLSMediaPlaylist.Map?
        for segment in media.segments {
            let segmentDecryption = try decryption(segment.key, "segment \(segment.sequence)", sequence: segment.sequence)
            if let map = segment.map, map != currentMap {
                // An init section is written where it starts or changes (fragmented MP4).
                let mapDecryption = try decryption(
                    map.key, "the initialization section of segment \(segment.sequence)", sequence: segment.sequence)
                plan.pieces.append(
                    .init(
                        resource: try resource(map.uri, .initSection), offset: map.byteRange?.offset, length: map.byteRange?.length,
                        decryption: mapDecryption, isSegment: false, sequence: segment.sequence))
            }
            currentMap = segment.map
            plan.pieces.append(
                .init(
                    resource: try resource(segment.uri, .segment), offset: segment.byteRange?.offset,
                    length: segment.byteRange?.length, decryption: segmentDecryption, isSegment: true, sequence: segment.sequence))
            plan.segmentCount += 1
            plan.duration += segment.duration
        }
        return plan
    }

    /// `uri` resolved against `base`, as the player resolves a playlist's entries.
    private static func resolve(_ uri: String, base: String) throws(HLSDownloadFailure) -> String {
        do throws(PlaylistError) {
            guard case .url(let resolved) = try PlaylistEntry(uri, title: nil).location(in: .url(base)) else {
                throw PlaylistError(.badEntry, "not an http(s) URL")
            }
            return resolved
        } catch {
            throw HLSDownloadFailure("\(uri) in the HLS playlist \(base): \(error.message)")
        }
    }
}
