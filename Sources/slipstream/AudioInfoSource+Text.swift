import SlipstreamAudio

extension AudioInfo.Source {
    /// The summary as labelled values, for `slipstream info`'s text output.
    var textFields: [(label: String, value: String)] {
        var fields: [(label: String, value: String)] = []
        if let file { fields.append(("File", file)) }
        if let url { fields.append(("URL", url)) }
        if let effectiveURL { fields.append(("Redirected to", effectiveURL)) }
        if let contentType { fields.append(("Content-Type", contentType)) }
        fields.append(("Size", size.map { "\(Formatting.bytes($0)) (\($0) bytes)" } ?? "unknown"))
        if let acceptsRanges { fields.append(("Ranges", acceptsRanges ? "yes" : "no")) }
        let what = url == nil ? "read" : "request"
        fields.append(("Read", "\(Formatting.bytes(bytesRead)) in \(requests) \(what)\(requests == 1 ? "" : "s")"))
        return fields
    }
}
