/// Tells a playlist from audio (or anything else) by its first bytes, then by its
/// `Content-Type`, then by its name's extension, in that order: bytes that begin like a
/// playlist (`#EXTM3U`, `#EXTINF`, `[playlist]`, an XML `<playlist>`, a first line that is a
/// URL) are one whatever they were served as; bytes that are not text are never one; text
/// is one when its type or extension says so (a plain M3U of relative paths). Pure.
package enum PlaylistRecognizer {
    /// What the head of a stream is.
    package enum Verdict: Hashable, Sendable {
        /// A playlist in this format.
        case playlist(PlaylistFormat)
        /// Not a playlist: audio, or something the audio parser will name.
        case notPlaylist
        /// Too few bytes to tell: look again with more.
        case needMore
    }

    /// The most bytes looked at: past them the verdict never waits.
    package static let headLimit = 1024

    /// Looks at `head`, the stream's first bytes (`isComplete`: all of it), served as
    /// `contentType`, from a URL or file `name` (for its extension).
    package static func recognize(
        _ head: UnsafeRawBufferPointer, isComplete: Bool, contentType: String?, name: String?
    ) -> Verdict {
        let head = UnsafeRawBufferPointer(rebasing: head.prefix(headLimit))
        let isFinal = isComplete || head.count == headLimit
        switch content(head, isFinal: isFinal) {
        case .playlist(let format): return .playlist(format)
        case .needMore: return .needMore
        case .notPlaylist: break
        }
        guard let declared = format(contentType: contentType) ?? name.flatMap(format(name:)) else { return .notPlaylist }
        // Declared a playlist: text (to its first line end, if it has one yet) is one.
        var sawLineEnd = false
        for byte in head {
            if byte == 0x0A || byte == 0x0D { sawLineEnd = true; break }
            if PlaylistText.isControl(byte) || byte == 0xFF || byte == 0xFE { return .notPlaylist }
        }
        return sawLineEnd || isFinal ? .playlist(declared) : .needMore
    }

    /// The verdict of the bytes alone: `.notPlaylist` when they do not begin like a playlist.
    private static func content(_ head: UnsafeRawBufferPointer, isFinal: Bool) -> Verdict {
        // A byte order mark cut short: what follows it decides.
        if head.count < 3, !isFinal, !head.isEmpty, PlaylistText.byteOrderMark.starts(with: head) { return .needMore }
        var start = PlaylistText.hasByteOrderMark(head) ? 3 : 0
        while start < head.count, XMLTokenizer.isSpace(head[start]) { start += 1 }
        let text = UnsafeRawBufferPointer(rebasing: head[start...])
        var undecided = false
        for (signature, format) in signatures {
            switch match(text, signature, isFinal: isFinal) {
            case .yes: return .playlist(format)
            case .maybe: undecided = true
            case .no: break
            }
        }
        if text.first == UInt8(ascii: "<") {
            // XML: an XSPF `<playlist` root, after any declaration and comments.
            if contains(text, "<playlist") || contains(text, ":playlist") { return .playlist(.xspf) }
            if !isFinal { undecided = true }
        }
        switch urlScheme(text, isFinal: isFinal) {
        case .yes: return .playlist(.m3u)
        case .maybe: undecided = true
        case .no: break
        }
        return undecided ? .needMore : .notPlaylist
    }

    /// Beginnings that make a playlist, matched without regard to case.
    private static let signatures: [(String, PlaylistFormat)] = [
        ("#extm3u", .m3u), ("#extinf", .m3u), ("#ext-x-", .m3u), ("[playlist]", .pls),
    ]

    private enum Match { case yes, no, maybe }

    /// Whether `text` starts with `signature` (lowercase ASCII), ignoring case; `.maybe` when
    /// it is a shorter beginning of it and more may come.
    private static func match(_ text: UnsafeRawBufferPointer, _ signature: String, isFinal: Bool) -> Match {
        for (index, expected) in signature.utf8.enumerated() {
            guard index < text.count else { return isFinal ? .no : .maybe }
            if lowercased(text[index]) != expected { return .no }
        }
        return .yes
    }

    /// Whether `text` begins with a URL: a scheme of two or more letters, then `://`.
    private static func urlScheme(_ text: UnsafeRawBufferPointer, isFinal: Bool) -> Match {
        var index = 0
        while index < text.count, isSchemeByte(text[index], first: index == 0) { index += 1 }
        guard index < text.count else { return isFinal || index == 0 ? .no : .maybe }
        guard index >= 2 else { return .no }
        let rest = UnsafeRawBufferPointer(rebasing: text[index...])
        return match(rest, "://", isFinal: isFinal)
    }

    private static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        return letter || (!first && ((0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E))
    }

    private static func contains(_ text: UnsafeRawBufferPointer, _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard text.count >= needle.count else { return false }
        return (0...text.count - needle.count).contains { at in
            needle.indices.allSatisfy { lowercased(text[at + $0]) == needle[$0] }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// The playlist format a `Content-Type` names (parameters and case ignored), nil for
    /// another type.
    package static func format(contentType: String?) -> PlaylistFormat? {
        guard let contentType else { return nil }
        let type = contentType.prefix { $0 != ";" }.trimmingSpaces().lowercased()
        switch type {
        case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/mpegurl",
            "application/vnd.apple.mpegurl", "application/vnd.apple.mpegurl.audio", "audio/x-m3u", "audio/m3u":
            return .m3u
        case "audio/x-scpls", "audio/scpls", "application/x-scpls", "application/pls":
            return .pls
        case "application/xspf+xml":
            return .xspf
        default:
            return nil
        }
    }

    /// The playlist format the extension of a URL's path or a file's name names (`.m3u`,
    /// `.m3u8`, `.pls`, `.xspf`, in any case), nil for another.
    package static func format(name: String) -> PlaylistFormat? {
        switch AudioLocation.fileExtension(of: name)?.lowercased() {
        case "m3u", "m3u8": .m3u
        case "pls": .pls
        case "xspf": .xspf
        default: nil
        }
    }
}
