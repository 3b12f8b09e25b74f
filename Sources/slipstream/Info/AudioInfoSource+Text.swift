import SlipstreamAudio

extension AudioInfo.Source {
    /// The summary as labelled values, for `slipstream info`'s text output.
    var textFields: [(label: String, value: String)] {
        var fields: [(label: String, value: String)] = []
        if let playlist {
            let skipped = playlist.skippedEntries
            fields.append(
                (
                    "Playlist",
                    playlist.location + (skipped == 0 ? "" : " (\(skipped) \(skipped == 1 ? "entry" : "entries") before it skipped)")
                ))
            if let title = playlist.title { fields.append(("Entry title", title)) }
        }
        if let file { fields.append(("File", file)) }
        if let url { fields.append(("URL", url)) }
        if let effectiveURL { fields.append(("Redirected to", effectiveURL)) }
        if let contentType { fields.append(("Content-Type", contentType)) }
        if let station {
            if let name = station.name { fields.append(("Station", name)) }
            if let genre = station.genre { fields.append(("Genre", genre)) }
            if let description = station.description { fields.append(("Description", description)) }
            if let url = station.url { fields.append(("Web site", url)) }
            if let bitRate = station.bitRate { fields.append(("Stated bit rate", "\(bitRate) kbit/s")) }
        }
        if let title { fields.append(("Now playing", title.title + (title.url.map { " (\($0))" } ?? ""))) }
        if let hls {
            fields += hls.textFields
        } else if isLive {
            fields.append(("Size", "live stream (no end)"))
        } else {
            fields.append(("Size", size.map { "\(Formatting.bytes($0)) (\($0) bytes)" } ?? "unknown"))
        }
        if let acceptsRanges { fields.append(("Ranges", acceptsRanges ? "yes" : "no")) }
        let what = url == nil ? "read" : "request"
        fields.append(("Read", "\(Formatting.bytes(bytesRead)) in \(requests) \(what)\(requests == 1 ? "" : "s")"))
        return fields
    }
}

extension AudioInfo.HLSStream {
    /// The HLS facts as labelled values: the variants (the one chosen marked), the media
    /// playlist followed, its type, segments and encryption.
    var textFields: [(label: String, value: String)] {
        var fields: [(label: String, value: String)] = []
        for (index, variant) in variants.enumerated() {
            let average = variant.averageBandwidth.map { ", average \(Formatting.kilobits($0))" } ?? ""
            let codecs = variant.codecs.isEmpty ? "" : ", " + variant.codecs.joined(separator: ",")
            let chosen = index == chosenVariant ? " (chosen)" : ""
            fields.append(
                (
                    "Variant \(index)",
                    Formatting.kilobits(variant.bandwidth) + average + codecs + (variant.hasVideo ? ", video" : "") + chosen
                ))
        }
        if let audioRendition { fields.append(("Audio rendition", audioRendition)) }
        fields.append(("Media playlist", mediaPlaylist))
        let kind =
            switch type {
            case .vod: "VOD"
            case .event: "EVENT (growing)"
            case .live: "live (sliding window)"
            }
        fields.append(("HLS type", kind))
        let format = segmentFormat.map { ", \($0.rawValue)" } ?? ""
        fields.append(("Segments", "\(segmentCount) of up to \(targetDuration) s" + format))
        fields.append(("Encryption", encryption ?? "none"))
        return fields
    }
}
